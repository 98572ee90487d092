import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  MAX_NOT_SCORED_REASON_CHARS,
  notScoredField,
  UNKNOWN_TEST_CASE_REASON,
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

describe('notScoredField of a test case id no suite has', () => {
  it('counts every such id under one reason, without the id, however the id reads', () => {
    const want = `ns${SEP}${UNKNOWN_TEST_CASE_REASON}`;
    for (const id of ['a', 'b', 'x) (y', '" is in no suite (z', '', 'é'.repeat(300)])
      expect(notScoredField(`test case "${id}" is in no suite (support, travel)`, id)).toBe(want);
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), id => {
        expect(notScoredField(`test case "${id}" is in no suite (support)`, id)).toBe(want);
      }),
    );
    // The reason's other parts are counted as before.
    expect(
      notScoredField('test case "a" is in no suite (s); sampled out of tool health (rate)', 'a'),
    ).toBe(`${want}; sampled out of tool health`);
  });

  it('leaves a reason that names no such id as it is', () => {
    expect(notScoredField('no test case id attribute (spanscore.test_case.id)', 'a')).toBe(
      `ns${SEP}no test case id attribute`,
    );
    // An id the reason does not start with (another run's): not taken out.
    expect(notScoredField('test case "a" is in no suite (s)', 'b')).toBe(
      `ns${SEP}test case "a" is in no suite`,
    );
  });
});
