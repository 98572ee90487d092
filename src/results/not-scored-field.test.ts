import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  MAX_NOT_SCORED_REASON_CHARS,
  notScoredField,
  notScoredFields,
  OTHER_NOT_SCORED_REASON,
} from './not-scored-field.js';

const SEP = '\u001f';
/** What the counters did before: every parenthesized detail and the white space before it. */
const detailsLeftOut = (reason: string): string => reason.replace(/\s*\([^)]*\)/g, '').trim();

describe('notScoredField', () => {
  it('leaves out parenthesized details as the regex did, for reasons within the bound', () => {
    for (const reason of [
      'no test case id attribute (spanscore.test_case.id, test_case_id)',
      'test case "cancel" is in no suite (support)',
      'no production rule matched (service "a) b", root span "c")',
      'a (b) (c) d ((e) f',
      'sampled out by rule x; sampled out of tool health (toolHealth.sampleRate)',
      'expired',
    ])
      expect(notScoredField(reason)).toBe(`ns${SEP}${detailsLeftOut(reason)}`);
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z ()"]{0,120}$/), reason => {
        expect(notScoredField(reason)).toBe(`ns${SEP}${detailsLeftOut(reason)}`);
      }),
    );
  });

  it('cuts a long reason, however much white space or how many parentheses it holds', () => {
    for (const id of [' '.repeat(1_000_000), '('.repeat(1_000_000), '()'.repeat(500_000)]) {
      const field = notScoredField(`test case "${id}x" is in no suite (support)`);
      expect(field.length).toBeLessThanOrEqual(3 + MAX_NOT_SCORED_REASON_CHARS);
    }
    const long = notScoredField(`test case "${'x'.repeat(10_000)}" is in no suite`);
    expect(long).toHaveLength(3 + MAX_NOT_SCORED_REASON_CHARS);
    expect(long.endsWith('…')).toBe(true);
  });
});

describe('notScoredFields', () => {
  it('keeps the first reasons apart and counts the rest as one, the same each time', () => {
    const fields = notScoredFields(2);
    expect(fields('test case "a" is in no suite (s)')).toBe(`ns${SEP}test case "a" is in no suite`);
    expect(fields('test case "b" is in no suite (s)')).toBe(`ns${SEP}test case "b" is in no suite`);
    const other = `ns${SEP}${OTHER_NOT_SCORED_REASON}`;
    expect(fields('test case "c" is in no suite (s)')).toBe(other);
    // Kept ones stay kept, past the bound too (a replaced pass takes its count back there).
    expect(fields('test case "a" is in no suite (t)')).toBe(`ns${SEP}test case "a" is in no suite`);
    expect(fields('test case "c" is in no suite (s)')).toBe(other);
  });
});
