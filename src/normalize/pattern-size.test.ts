import { describe, expect, it } from 'vitest';
import { RE2JS } from 're2js';
import { charsRead } from '../../test/helpers/counting-calls.js';
import { SCHEMA_LIMITS } from './prepare-schema.js';
import { patternSizeBound, SCAN_CHARS, UNICODE_CLASS } from './pattern-size.js';

// Pieces of RE2 syntax a pattern is drawn from: atoms, classes, groups, flags, quantifiers.
const PIECES = [
  'a',
  '.',
  '\\d',
  '\\pL',
  '\\p{Greek}',
  '[a-z]',
  '[^]x]',
  '[[:alpha:]]',
  '[\\]]',
  '(',
  '(?:',
  '(?i)',
  '(?i:',
  '(?P<n>',
  ')',
  '|',
  '*',
  '+',
  '?',
  '*?',
  '{2}',
  '{3,}',
  '{2,5}',
  '{0}',
  '{10}',
  '{100}',
  '^',
  '$',
  '\\b',
  '\\Qab*\\E',
  '\\x{263a}',
  'é',
  '{',
  '}',
  '[[:',
  ':]',
  '[^',
];

describe('patternSizeBound', () => {
  it('is at least the size of the program RE2 compiles, for 20,000 drawn patterns', () => {
    let seed = 7;
    const draw = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) & 0x7fffffff;
      return seed % n;
    };
    let compiled = 0;
    const under: string[] = [];
    for (let k = 0; k < 20_000; k++) {
      let pattern = '';
      for (let j = 1 + draw(12); j > 0; j--) pattern += PIECES[draw(PIECES.length)]!;
      let size: number;
      try {
        size = RE2JS.compile(pattern).programSize();
      } catch {
        continue; // RE2 refuses it: nothing is compiled
      }
      compiled++;
      if (patternSizeBound(pattern) < size) under.push(pattern);
    }
    expect(compiled).toBeGreaterThan(5_000);
    expect(under).toEqual([]);
  });

  it('reads ordinary patterns near their size, and repeats as the copies RE2 makes', () => {
    for (const [pattern, most] of [
      ['^[a-z]+$', 12],
      ['^\\d{4}-\\d{2}-\\d{2}$', 30],
      ['^[a-zA-Z0-9_-]{1,64}$', 140],
    ] as const)
      expect(patternSizeBound(pattern)).toBeLessThanOrEqual(most);
    // 4,003 instructions compiled; each nested count multiplies what it repeats.
    expect(patternSizeBound('(?:a|ab){1000}0')).toBeGreaterThanOrEqual(4_003);
    expect(patternSizeBound('((a{10}){10}){10}')).toBeGreaterThanOrEqual(1_000);
    // A count RE2 refuses (past 1,000) costs no more than 1,001 copies: it is never compiled.
    expect(patternSizeBound('a{99999999999}')).toBeLessThan(3_000);
  });

  it("counts what compiling costs beyond instructions: Unicode tables, and the parser's scans", async () => {
    // 24 KB, 4,002 instructions, 440 ms to compile: each class folds all of Unicode but letters.
    const folded = `(?i)${'[^\\pL]'.repeat(4_000)}`;
    expect(patternSizeBound(folded)).toBeGreaterThanOrEqual(4_000 * UNICODE_CLASS);
    expect(patternSizeBound(folded)).toBeGreaterThan(SCHEMA_LIMITS.maxPatternInstructions);
    // 30 KB, 3 instructions, 360 ms to compile: RE2's parser looks for a `:]` to the end of the
    // text at each `[:`. Counted without looking: the characters this reads stay linear.
    const scans = `[${'[:a'.repeat(10_000)}]`;
    let bound = 0;
    const read = await charsRead(() => (bound = patternSizeBound(scans)));
    expect(bound).toBeGreaterThanOrEqual((10_000 * scans.length) / 2 / SCAN_CHARS);
    expect(bound).toBeGreaterThan(SCHEMA_LIMITS.maxPatternInstructions);
    expect(read).toBeLessThan(4 * scans.length);
  });

  it('counts a Unicode class once per class written, not once per copy a count makes', () => {
    // RE2 builds the tables when it parses the class; a count copies one instruction.
    expect(patternSizeBound('^[\\p{L}\\p{N}_-]{1,64}$')).toBe(262); // 131 compiled; was 4,166
    expect(patternSizeBound('^[\\p{L}\\p{N}\\p{P}\\p{Zs}]{1,500}$')).toBe(1_262); // 1,003; was 32,506
    expect(patternSizeBound('^[^<>]{1,1000}$')).toBe(2_010); // 2,003; was 5,006
    // Each class written still counts its tables: 4,000 of them stay past the bound.
    expect(patternSizeBound(`(?i)${'[^\\pL]'.repeat(4_000)}`)).toBe(4 + 4_000 * (1 + 64 + 4));
  });

  it('counts a case-folded range by the code points RE2 folds one by one', () => {
    // `[B-\x{1E942}]` folds 124,161 code points (0x42 to 0x1E942): 4.7 ms, as 2,484 instructions.
    const folded = Math.ceil((0x1e942 - 0x42 + 1) / 50);
    expect(patternSizeBound('(?i)[B-\\x{1E942}]')).toBe(5 + folded);
    expect(patternSizeBound('(?i:[^B-\\x{1E942}])')).toBeGreaterThan(folded);
    expect(patternSizeBound('(?i)[\\x42-\\x{1E942}]')).toBe(5 + folded);
    // A `]` first in the class starts a range too: `]` to U+1E942 folds as many (read as 5 before).
    const fromBracket = Math.ceil((0x1e942 - 0x5d + 1) / 50);
    expect(patternSizeBound('(?i)[]-\\x{1E942}]')).toBe(5 + fromBracket);
    expect(patternSizeBound('(?i)[^]-\\x{1E942}]')).toBeGreaterThan(fromBracket);
    // 2,400 of them, 11.3 s to compile, had been read as 2,404 instructions.
    expect(patternSizeBound(`(?i)${'[B-\\x{1E942}]'.repeat(2_400)}`)).toBeGreaterThan(
      2_400 * folded,
    );
    // Not folded: without the flag, after `(?-i)`, past its group, or a range holding all folds.
    expect(patternSizeBound('[B-\\x{1E942}]')).toBe(5);
    expect(patternSizeBound('(?i)(?-i)[B-\\x{1E942}]')).toBe(5);
    expect(patternSizeBound('(?i:a)[B-\\x{1E942}]')).toBeLessThan(20);
    expect(patternSizeBound('(?i)[\\x{0}-\\x{10FFFF}]')).toBe(5);
    // Ordinary folded classes stay near their size.
    expect(patternSizeBound('(?i)^[a-z0-9_]{3,32}$')).toBeLessThan(80);
  });
});
