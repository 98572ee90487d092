import { describe, expect, it } from 'vitest';
import { RecordCopier } from './record-copier.js';

/** `n` bytes that differ from each neighbour (a copy off by one byte shows). */
const bytes = (n: number, seed: number): Buffer => {
  const b = Buffer.allocUnsafe(n);
  for (let i = 0; i < n; i++) b[i] = (i * 31 + seed * 7 + (i >> 8)) & 0xff;
  return b;
};

describe('RecordCopier', () => {
  it('copies every length from 0 to 9, around its 16-byte step and around its loop limit, at unaligned offsets of views into shared memory', () => {
    // Sources and target as Node hands them out: views at odd offsets into larger memory.
    const memory = bytes(8192, 1);
    const source = memory.subarray(3, 4000);
    const other = bytes(3000, 2).subarray(1);
    const target = Buffer.alloc(20_000).subarray(5);
    const copier = new RecordCopier(target);
    const expected = Buffer.alloc(target.length);
    let at = 1;
    const lengths = [
      0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 15, 16, 17, 19, 20, 31, 33, 1023, 1024, 1025, 2047,
    ];
    lengths.forEach((n, i) => {
      // The sources alternate in pairs: the copier's view of the last source is kept for the
      // second copy of a pair and replaced for the first.
      const from = (i >> 1) % 2 === 0 ? source : other;
      const start = 1 + (i % 5);
      copier.copy(from, start, start + n, at);
      from.copy(expected, at, start, start + n);
      at += n + 1; // and the byte between copies stays untouched
    });
    expect(target.equals(expected)).toBe(true);
    // Nothing written before or after the target view.
    expect(target.buffer.byteLength).toBeGreaterThan(target.length);
    expect(new Uint8Array(target.buffer, 0, target.byteOffset).every(b => b === 0)).toBe(true);
  });
});
