import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cutText, cutTextBytes } from './cut-text.js';

describe('cutText', () => {
  it('keeps the first units of a text, never ending in the first half of a surrogate pair', () => {
    expect(cutText('abc', 3)).toBe('abc');
    expect(cutText('abcd', 3)).toBe('abc');
    expect(cutText('ab😀', 3)).toBe('ab');
    expect(cutText('a😀b', 3)).toBe('a😀');
  });
});

// Characters of 1, 2, 3 and 4 bytes in UTF-8, and a lone surrogate (written as 3).
const mixedText = fc
  .array(fc.constantFrom('a', 'é', '€', '😀', '\ud800'), { maxLength: 40 })
  .map(parts => parts.join(''));

describe('cutTextBytes', () => {
  it('keeps a text that fits, cuts one that does not at a character, ellipsis included', () => {
    expect(cutTextBytes('abc', 4)).toBe('abc');
    expect(cutTextBytes('€€', 6)).toBe('€€');
    expect(cutTextBytes('€€€', 8)).toBe('€…');
    // A surrogate pair (4 bytes) is never split.
    expect(cutTextBytes('a😀😀', 8)).toBe('a😀…');
    expect(cutTextBytes('a😀😀', 7)).toBe('a…');
    fc.assert(
      fc.property(mixedText, fc.integer({ min: 4, max: 64 }), (text, max) => {
        const cut = cutTextBytes(text, max);
        expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(max);
        if (cut !== text) expect(text.startsWith(cut.slice(0, -1))).toBe(true);
        else expect(Buffer.byteLength(text)).toBeLessThanOrEqual(max);
      }),
    );
  });
});
