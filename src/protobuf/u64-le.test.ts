import { describe, expect, it } from 'vitest';
import { readU64LE, writeU64LE } from './u64-le.js';

const EDGES = [
  0n,
  1n,
  255n,
  256n,
  2n ** 32n - 1n,
  2n ** 32n,
  1_764_000_000_123_456_789n,
  2n ** 64n - 1n,
];

describe('u64 little-endian', () => {
  it('reads and writes the bytes Buffer reads and writes, at any offset', () => {
    for (const n of EDGES) {
      const expected = Buffer.alloc(11);
      expected.writeBigUInt64LE(n, 3);
      const written = Buffer.alloc(11);
      writeU64LE(written, 3, n);
      expect(written).toEqual(expected);
      expect(readU64LE(expected, 3)).toBe(n);
    }
  });

  it('refuses a value outside [0, 2^64) with the RangeError Buffer throws, writing nothing', () => {
    for (const n of [-1n, 2n ** 64n]) {
      const buf = Buffer.alloc(8);
      expect(() => writeU64LE(buf, 0, n)).toThrow(RangeError);
      expect(buf).toEqual(Buffer.alloc(8));
    }
  });
});
