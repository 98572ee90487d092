import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ProtobufWriter } from './protobuf-writer.js';

/** A bytes field of the bytes `hex` spells as the runtime's hex decoder writes them. */
function byDecoder(field: number, hex: string): Buffer {
  const n = hex.length >>> 1;
  const out = Buffer.alloc(16 + n);
  let pos = 0;
  out[pos++] = (field << 3) | 2;
  for (let v = n; ; v >>>= 7) {
    out[pos++] = v > 0x7f ? (v & 0x7f) | 0x80 : v;
    if (v <= 0x7f) break;
  }
  pos += out.write(hex, pos, n, 'hex');
  return out.subarray(0, pos);
}

function byWriter(field: number, hex: string): Buffer {
  const w = new ProtobufWriter(4);
  w.hexField(field, hex);
  return Buffer.from(w.done());
}

describe('ProtobufWriter.hexField', () => {
  it('writes the bytes of ids in either case, as the runtime’s decoder does', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.boolean(), (bytes, upper) => {
        const hex = Buffer.from(bytes).toString('hex');
        const id = upper ? hex.toUpperCase() : hex;
        const ours = byWriter(1, id);
        expect(ours).toEqual(byDecoder(1, id));
        expect(ours.subarray(ours.length - bytes.length)).toEqual(Buffer.from(bytes));
      }),
      { numRuns: 500 },
    );
  });

  it('writes what the decoder writes for text that is not hex (it stops at the first bad pair)', () => {
    const cases = ['0g', 'zz00', '00ff0x11', 'abc', 'ab\u0100cd', '12é4', '1234567890abcdeF'];
    for (const text of cases) expect(byWriter(2, text)).toEqual(byDecoder(2, text));
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom(...'0123456789abcdefABCDEFxyz é\u0100'), maxLength: 40 }),
        text => {
          expect(byWriter(2, text)).toEqual(byDecoder(2, text));
        },
      ),
      { numRuns: 500 },
    );
  });
});
