import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EncodedKeys } from './encoded-keys.js';
import { ProtobufWriter } from './protobuf-writer.js';

/** A `KeyValue` for each pair, written by a writer with `keys` (or without). */
function written(pairs: ReadonlyArray<[string, string | number]>, keys?: EncodedKeys): Buffer {
  const w = new ProtobufWriter(16, keys);
  for (const [key, value] of pairs) w.keyValue(key, value, 'int-or-double');
  return Buffer.from(w.done());
}

describe('EncodedKeys: keys a writer copies rather than encodes', () => {
  it('writes the bytes a writer without it writes, the first time and from the set', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            // ASCII, any UTF-16 (lone surrogates included) and keys past the kept length.
            fc.oneof(
              fc.string({ maxLength: 70 }),
              fc.string({ unit: 'binary', maxLength: 70 }),
              fc.string({ unit: fc.constantFrom('é', '€', '🚀'), maxLength: 40 }),
            ),
            fc.oneof(fc.string({ maxLength: 20 }), fc.integer()),
          ),
          { maxLength: 30 },
        ),
        pairs => {
          const keys = new EncodedKeys();
          const plain = written(pairs);
          expect(written(pairs, keys)).toEqual(plain); // keys encoded and kept
          expect(written(pairs, keys)).toEqual(plain); // keys copied
        },
      ),
      { numRuns: 300 },
    );
  });

  it('gives a key of 64 units of three UTF-8 bytes its two-byte length', () => {
    const key = '€'.repeat(EncodedKeys.MAX_KEY_CHARS); // 192 bytes
    const keys = new EncodedKeys();
    const encoded = keys.of(key)!;
    expect(Array.from(encoded.subarray(0, 3))).toEqual([0x0a, 0xc0, 0x01]);
    expect(encoded.length).toBe(3 + 192 + 1);
    expect(encoded[encoded.length - 1]).toBe(0x12);
  });

  it('keeps at most its bound of keys, the first seen, and no key past the kept length', () => {
    const keys = new EncodedKeys(8);
    expect(keys.of('k'.repeat(EncodedKeys.MAX_KEY_CHARS + 1))).toBeUndefined();
    expect(keys.size).toBe(0);
    // A trace's keys, as many as a hostile sender likes: the set stops growing at its bound.
    for (let i = 0; i < 100_000; i++) keys.of(`attacker.key.${i}`);
    expect(keys.size).toBe(8);
    expect(keys.of('attacker.key.7')).toBeDefined();
    expect(keys.of('attacker.key.8')).toBeUndefined();
    // A key not kept is still written right, encoded each time.
    const pairs: Array<[string, string]> = [['attacker.key.99999', 'v']];
    expect(written(pairs, keys)).toEqual(written(pairs));
  });
});
