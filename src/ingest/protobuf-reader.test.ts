import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ProtobufReader } from './protobuf-reader.js';

/** A 64-bit value as a protobuf varint (two's complement for a negative one: 10 bytes). */
function varint(value: bigint): Buffer {
  let v = BigInt.asUintN(64, value);
  const bytes: number[] = [];
  do {
    const b = Number(v & 0x7fn);
    v >>= 7n;
    bytes.push(v ? b | 0x80 : b);
  } while (v);
  return Buffer.from(bytes);
}

/** What `int64()` returned before its number fast path: a safe integer, else the decimal text. */
function expectedInt64(value: bigint): number | string {
  const n = BigInt.asIntN(64, value);
  return Number.isSafeInteger(Number(n)) ? Number(n) : n.toString();
}

describe('ProtobufReader: 64-bit fields', () => {
  it('reads any int64 varint as the BigInt reading did, and consumes it whole', () => {
    const values = fc.oneof(
      fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
      fc.bigInt({ min: 0n, max: 2n ** 56n }), // the lengths around the 7-byte fast path
      fc.constantFrom(0n, 1n, 127n, 128n, 2n ** 49n - 1n, 2n ** 49n, 2n ** 53n, -1n),
    );
    fc.assert(
      fc.property(values, value => {
        const buf = Buffer.concat([varint(value), Buffer.from([0x2a])]);
        const reader = new ProtobufReader(buf);
        expect(reader.int64()).toBe(expectedInt64(value));
        expect(reader.pos).toBe(buf.length - 1);
      }),
      { numRuns: 2000 },
    );
  });

  it('throws on an int64 varint cut short by the end of the message', () => {
    const bytes = varint(2n ** 40n);
    const reader = new ProtobufReader(bytes, bytes.length - 1);
    expect(() => reader.int64()).toThrow('varint runs past the end');
  });

  it('reads any fixed64 as readBigUInt64LE does, at any offset', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }), fc.nat({ max: 7 }), (value, at) => {
        const buf = Buffer.alloc(at + 8);
        buf.writeBigUInt64LE(value, at);
        const reader = new ProtobufReader(buf);
        reader.pos = at;
        expect(reader.fixed64()).toBe(value);
        expect(reader.pos).toBe(at + 8);
      }),
      { numRuns: 1000 },
    );
    const short = new ProtobufReader(Buffer.alloc(7));
    expect(() => short.fixed64()).toThrow('fixed64 runs past the end');
  });

  it('tells ids apart by every byte, at any offset, whether or not one repeats the last', () => {
    // Ids one byte apart (each position, in a slot and not), an all-zero id and ids zero but for
    // one byte, in a buffer whose memory starts at every offset (words read unaligned).
    for (const bytes of [8, 16]) {
      const base = Array.from({ length: bytes }, (_, i) => (i * 37 + 11) & 0xff);
      const ids: number[][] = [base, Array(bytes).fill(0)];
      for (let at = 0; at < bytes; at++) {
        ids.push(base.map((b, i) => (i === at ? b ^ 0x80 : b)));
        ids.push(Array.from({ length: bytes }, (_, i) => (i === at ? 1 : 0)));
        ids.push(base);
      }
      for (let offset = 0; offset < 4; offset++) {
        const frames = ids.flatMap(id => [bytes, ...id]);
        const memory = Buffer.from([...Array(offset).fill(0xee), ...frames]);
        const buf = memory.subarray(offset);
        for (const slot of [undefined, 0, 1] as const) {
          const reader = new ProtobufReader(buf);
          for (const id of ids) {
            const hex = Buffer.from(id).toString('hex');
            expect(reader.id(bytes, 'id', slot)).toBe(/^0+$/.test(hex) ? '' : hex);
          }
          expect(reader.pos).toBe(buf.length);
        }
      }
    }
  });

  it('reset points a reader at another buffer and forgets the ids read in the old one', () => {
    const id = Buffer.from([0x10, ...Array.from({ length: 16 }, (_, i) => i + 1)]);
    const reader = new ProtobufReader(id);
    expect(reader.id(16, 'traceId', 0)).toBe('0102030405060708090a0b0c0d0e0f10');
    const other = Buffer.from([0x10, ...Array.from({ length: 16 }, (_, i) => 16 - i)]);
    reader.reset(other, 0, other.length);
    expect(reader.id(16, 'traceId', 0)).toBe('100f0e0d0c0b0a090807060504030201');
    expect(reader.pos).toBe(other.length);
  });
});
