import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareSummaries } from './compare-summaries.js';
import type { RunSummary, RunSummaryRow } from './run-summary.js';

function row(
  testCaseId: string,
  runs: number,
  passes: number,
  scorerVersion = 'v1',
): RunSummaryRow {
  return {
    testCaseId,
    scorer: 'tool_correctness',
    scorerVersion,
    runs,
    passes,
    passRate: runs ? passes / runs : null,
    interval: [0, 1],
    k: Math.max(1, runs),
    passAtK: null,
    passHatK: null,
    stability: 'flaky',
    failingTraceIds: [],
  };
}

function summary(...results: RunSummaryRow[]): RunSummary {
  return {
    spanscoreRunSummary: 1,
    suite: 's',
    spanscoreVersion: '0.1.0',
    createdAt: '2026-11-25T00:00:00.000Z',
    labels: {},
    results,
  };
}

describe('compareSummaries', () => {
  it('gives each verdict where it belongs', () => {
    const report = compareSummaries(
      summary(
        row('worse', 10, 10),
        row('better', 10, 1),
        row('flip', 1, 1),
        row('same', 5, 3),
        row('gone', 3, 3),
        row('reconfigured', 10, 10, 'v1'),
      ),
      summary(
        row('worse', 10, 2),
        row('better', 10, 9),
        row('flip', 1, 0),
        row('same', 10, 6),
        row('fresh', 2, 2),
        row('reconfigured', 10, 0, 'v2'),
      ),
    );
    const by = Object.fromEntries(report.comparisons.map(c => [c.testCaseId, c]));
    expect(by.worse).toMatchObject({ verdict: 'regressed', direction: 'down', significant: true });
    expect(by.worse!.pValue).toBeLessThan(0.001);
    expect(by.better).toMatchObject({ verdict: 'improved', direction: 'up', significant: true });
    expect(by.flip).toMatchObject({
      verdict: 'unchanged',
      direction: 'down',
      pValue: 0.5,
      significant: false,
      flip: true,
    });
    expect(by.same).toMatchObject({
      verdict: 'unchanged',
      direction: 'same',
      pValue: 1,
      flip: false,
    });
    expect(by.fresh).toMatchObject({ verdict: 'new', baseline: null, direction: null });
    expect(by.gone).toMatchObject({ verdict: 'removed', current: null });
    expect(by.reconfigured).toMatchObject({ verdict: 'not_comparable', direction: 'down' });
    expect(report.summary).toEqual({
      regressed: 1,
      improved: 1,
      unchanged: 2,
      new: 1,
      removed: 1,
      not_comparable: 1,
      flips: 1,
      total: 7,
    });
    // Removed rows come after the current run's.
    expect(report.comparisons.at(-1)!.testCaseId).toBe('gone');
    // No --fail-on: informational, listing what --fail-on regression would fail on.
    expect(report.decision).toEqual({
      failOn: null,
      outcome: 'informational',
      failing: [
        { testCaseId: 'worse', scorer: 'tool_correctness', verdict: 'regressed', flip: false },
      ],
    });
  });

  it('fails on any fall only when asked, and never on a changed scorer', () => {
    const flip = (failOn: 'regression' | 'any-regression') =>
      compareSummaries(summary(row('a', 1, 1)), summary(row('a', 1, 0)), { failOn }).decision;
    expect(flip('regression')).toMatchObject({ outcome: 'passed', failing: [] });
    expect(flip('any-regression')).toMatchObject({
      outcome: 'failed',
      failing: [{ testCaseId: 'a', verdict: 'unchanged', flip: true }],
    });
    const changed = compareSummaries(summary(row('a', 9, 9, 'v1')), summary(row('a', 9, 0, 'v2')), {
      failOn: 'any-regression',
    });
    expect(changed.decision.outcome).toBe('passed');
  });

  it('respects alpha', () => {
    const a = summary(row('a', 4, 3));
    const b = summary(row('a', 4, 1)); // p = 17/70 ≈ 0.243
    expect(compareSummaries(a, b).comparisons[0]!.verdict).toBe('unchanged');
    expect(compareSummaries(a, b, { alpha: 0.25 }).comparisons[0]!.verdict).toBe('regressed');
  });

  const summaries = fc
    .uniqueArray(
      fc.record({
        id: fc.stringMatching(/^[a-z]{1,6}$/),
        runs: fc.integer({ min: 0, max: 30 }),
        seed: fc.nat(),
      }),
      { selector: r => r.id, maxLength: 12 },
    )
    .map(rows => summary(...rows.map(r => row(r.id, r.runs, r.runs ? r.seed % (r.runs + 1) : 0))));

  it('finds nothing changed between a summary and itself', () => {
    fc.assert(
      fc.property(summaries, s => {
        const report = compareSummaries(s, s);
        return report.comparisons.every(c => c.verdict === 'unchanged' && !c.flip);
      }),
    );
  });

  it('swaps regressed and improved, new and removed, when the sides swap', () => {
    fc.assert(
      fc.property(summaries, summaries, (a, b) => {
        const ab = compareSummaries(a, b).summary;
        const ba = compareSummaries(b, a).summary;
        return (
          ab.regressed === ba.improved &&
          ab.improved === ba.regressed &&
          ab.new === ba.removed &&
          ab.removed === ba.new &&
          ab.unchanged === ba.unchanged &&
          ab.flips === ba.flips
        );
      }),
    );
  });
});
