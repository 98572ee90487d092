import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EncodedStrings } from './encoded-strings.js';
import { ProtobufWriter } from '../protobuf/protobuf-writer.js';
import type { AttributeValue } from '../protobuf/attribute-value.js';

/** An `AnyValue` for each value, written by a writer with `strings` (or without). */
function written(values: readonly AttributeValue[], strings?: EncodedStrings): Buffer {
  const w = new ProtobufWriter(16, undefined, strings);
  for (const value of values) w.anyValue(value, 'int-or-double');
  return Buffer.from(w.done());
}

const anyString = fc.oneof(
  // ASCII, any UTF-16 (lone surrogates included) and strings past the kept length.
  fc.string({ maxLength: 70 }),
  fc.string({ unit: 'binary', maxLength: 70 }),
  fc.string({ unit: fc.constantFrom('é', '€', '🚀'), maxLength: 40 }),
);

describe('EncodedStrings: string values a writer copies rather than encodes', () => {
  it('writes the bytes a writer without it writes, the first time and from the set', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(anyString, fc.integer(), fc.array(anyString, { maxLength: 4 })), {
          maxLength: 30,
        }),
        values => {
          const strings = new EncodedStrings();
          const plain = written(values);
          expect(written(values, strings)).toEqual(plain); // strings encoded and kept
          expect(written(values, strings)).toEqual(plain); // strings copied
        },
      ),
      { numRuns: 300 },
    );
  });

  it('gives a string of 64 units of three UTF-8 bytes its two-byte lengths', () => {
    const s = '€'.repeat(64);
    const strings = new EncodedStrings();
    expect(written([s], strings)).toEqual(written([s]));
    // 192 bytes of string, its tag and 2-byte length: 195, past one byte's 127.
    expect(strings.of(s)!.subarray(0, 2)).toEqual(Uint8Array.from([0xc3, 0x01]));
  });

  it('finds a kept string again by its units, lone surrogates and all', () => {
    const strings = new EncodedStrings();
    const kept = ['lone \ud800 high', 'lone \udfff low', 'pair \ud83d\ude80', 'x'.repeat(64)];
    const encoded = kept.map(s => strings.of(s));
    // The same strings again, made anew (a trimmed view of a longer one): the kept arrays.
    kept.forEach((s, i) => expect(strings.of(` ${s} `.trim())).toBe(encoded[i]));
    expect(strings.size).toBe(kept.length);
  });

  it('keeps at most its bound, the first strings seen, and none past 64 units', () => {
    const strings = new EncodedStrings(3);
    for (const s of ['a', 'b', 'c', 'd']) strings.of(s);
    expect(strings.size).toBe(3);
    expect(strings.of('d')).toBeUndefined();
    expect(strings.of('a')).toBeDefined();
    expect(new EncodedStrings().of('x'.repeat(65))).toBeUndefined();
    expect(written(['d', 'x'.repeat(65)], strings)).toEqual(written(['d', 'x'.repeat(65)]));
  });
});
