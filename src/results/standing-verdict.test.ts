import { describe, expect, it } from 'vitest';
import { STANDING_VERDICT, standingVerdict } from './standing-verdict.js';
import type { StoredResult } from './stored-result.js';

const result = (r: Partial<StoredResult>): StoredResult =>
  ({
    scorer: 'tool_call_appropriateness',
    phase: 'llm',
    status: 'scored',
    label: 'fail',
    score: 0.5,
    reason: 'r',
    toolSequence: ['a', 'b'],
    ...r,
  }) as StoredResult;

describe('standingVerdict', () => {
  it('names the newest judge-pass result of each LLM scorer, and the calls it judged', () => {
    const note = standingVerdict({
      results: [
        result({ phase: 'deterministic', scorer: 'tool_call_accuracy', label: 'pass', score: 1 }),
        result({ label: 'pass', score: 1, toolSequence: ['a'] }),
        result({}),
        result({ scorer: 'rubric', status: 'failed', label: null, score: null }),
      ],
    });
    expect(note).toBe(
      `${STANDING_VERDICT}its last judge pass's (in the trace's evaluation spans): tool_call_appropriateness fail (score 0.5) over 2 tool calls, rubric failed over 2 tool calls`,
    );
  });

  it("carries on what an earlier rescore's skipped result said stood; else says none is recorded", () => {
    const earlier = `${STANDING_VERDICT}its last judge pass's (in the trace's evaluation spans): x pass (score 1) over 1 tool call`;
    const skipped = result({
      phase: 'deterministic',
      status: 'skipped',
      label: null,
      score: null,
      reason: `judge pass skipped: this is rescore 3${earlier}`,
    });
    expect(standingVerdict({ results: [skipped] })).toBe(earlier);
    expect(standingVerdict(undefined)).toMatch(/^; the verdict that stands: none recorded yet/);
    expect(standingVerdict({ results: [{ ...skipped, reason: 'budget' }] })).toMatch(
      /none recorded yet/,
    );
  });
});
