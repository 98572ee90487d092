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

  it('keeps the bits of every 8-byte word, whatever double it reads as (NaNs of every kind, -0), in every tier', () => {
    // The copier moves eight bytes at a time as doubles: a NaN made quiet or canonical on the
    // way would change a record's bytes. Patterns: signalling and quiet NaNs of both signs with
    // payloads (V8's hole NaN among them), infinities, -0, integers (a small one may become a
    // Smi in unoptimized code), random words; copied often enough for V8 to optimize the loop.
    const highs = [
      0x7ff00000, 0xfff00000, 0x7ff80000, 0xfff80000, 0x7ff7ffff, 0xfff7ffff, 0x7fffffff,
      0xffffffff, 0x7ff00001, 0x80000000, 0, 0x3ff00000, 0xbff00000,
    ];
    const lows = [0, 1, 0xfff7ffff, 0xffffffff, 0x80000000, 0x12345678];
    const words: [number, number][] = highs.flatMap(h => lows.map(l => [l, h] as [number, number]));
    let seed = 5;
    const next = (): number => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0);
    for (let i = 0; i < 50; i++) words.push([next(), next()]);
    const source = Buffer.alloc(words.length * 8 + 3).subarray(3);
    words.forEach(([low, high], i) => {
      source.writeUInt32LE(low, i * 8);
      source.writeUInt32LE(high, i * 8 + 4);
    });
    for (let round = 0; round < 2000; round++) {
      const target = Buffer.alloc(source.length + 5).subarray(5);
      new RecordCopier(target).copy(source, 0, source.length, 0);
      if (!target.equals(source)) expect(target.toString('hex')).toBe(source.toString('hex'));
    }
  });
});
