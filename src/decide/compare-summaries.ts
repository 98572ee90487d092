import type { RunSummary, RunSummaryRow } from './run-summary.js';
import { directionOf, fisherOneSided, type Direction } from './trial-statistics.js';

/** What a comparison decided for one test case × scorer. */
export type Verdict = 'regressed' | 'improved' | 'unchanged' | 'new' | 'removed' | 'not_comparable';

/** One side of a comparison. */
export interface ComparedSide {
  runs: number;
  passes: number;
  passRate: number | null;
  interval: [number, number];
  stability: RunSummaryRow['stability'];
  scorerVersion: string | null;
  failingTraceIds: string[];
}

/** One test case × scorer, compared. */
export interface Comparison {
  testCaseId: string;
  scorer: string;
  baseline: ComparedSide | null;
  current: ComparedSide | null;
  /** How the pass rate moved; null when one side has no row (`new`, `removed`). */
  direction: Direction | null;
  /** One-sided Fisher's exact test in the direction of the change; null without both sides. */
  pValue: number | null;
  significant: boolean;
  verdict: Verdict;
  /**
   * The pass rate moved but not significantly (a single-run 1/1 → 0/1 is one): shown as a flip,
   * never hidden, never a regression.
   */
  flip: boolean;
}

/** Counts per verdict, and the flips among the unchanged. */
export type ComparisonSummary = Record<Verdict, number> & { flips: number; total: number };

/** What `compare` prints as JSON. */
export interface ComparisonReport {
  baseline: { suite: string; createdAt: string; labels: Record<string, string> };
  current: { suite: string; createdAt: string; labels: Record<string, string> };
  alpha: number;
  comparisons: Comparison[];
  summary: ComparisonSummary;
}

const side = (row: RunSummaryRow): ComparedSide => ({
  runs: row.runs,
  passes: row.passes,
  passRate: row.passRate,
  interval: row.interval,
  stability: row.stability,
  scorerVersion: row.scorerVersion,
  failingTraceIds: row.failingTraceIds,
});

/**
 * Compares two run summaries per test case × scorer: the current run's rows in their order, then
 * rows only the baseline has. A row whose scorer configuration changed (another
 * `scorerVersion`) is `not_comparable`, never a regression. Pure.
 */
export function compareSummaries(
  baseline: RunSummary,
  current: RunSummary,
  options: { alpha?: number } = {},
): ComparisonReport {
  const alpha = options.alpha ?? 0.05;
  const key = (r: RunSummaryRow): string => `${r.testCaseId}\u0000${r.scorer}`;
  const before = new Map(baseline.results.map(r => [key(r), r]));
  const comparisons: Comparison[] = [];
  for (const row of current.results) {
    const old = before.get(key(row));
    before.delete(key(row));
    comparisons.push(compareRow(old, row, alpha));
  }
  for (const old of before.values()) comparisons.push(compareRow(old, undefined, alpha));

  const summary: ComparisonSummary = {
    regressed: 0,
    improved: 0,
    unchanged: 0,
    new: 0,
    removed: 0,
    not_comparable: 0,
    flips: 0,
    total: comparisons.length,
  };
  for (const c of comparisons) {
    summary[c.verdict]++;
    if (c.flip) summary.flips++;
  }
  const meta = (s: RunSummary) => ({ suite: s.suite, createdAt: s.createdAt, labels: s.labels });
  return { baseline: meta(baseline), current: meta(current), alpha, comparisons, summary };
}

function compareRow(
  old: RunSummaryRow | undefined,
  row: RunSummaryRow | undefined,
  alpha: number,
): Comparison {
  const { testCaseId, scorer } = (row ?? old)!;
  const base = {
    testCaseId,
    scorer,
    baseline: old ? side(old) : null,
    current: row ? side(row) : null,
  };
  if (!old || !row)
    return {
      ...base,
      direction: null,
      pValue: null,
      significant: false,
      verdict: old ? 'removed' : 'new',
      flip: false,
    };
  const direction = directionOf(old, row);
  const pValue = fisherOneSided(old, row);
  const significant = pValue < alpha;
  const changedScorer =
    old.scorerVersion !== null &&
    row.scorerVersion !== null &&
    old.scorerVersion !== row.scorerVersion;
  const verdict: Verdict = changedScorer
    ? 'not_comparable'
    : significant && direction === 'down'
      ? 'regressed'
      : significant && direction === 'up'
        ? 'improved'
        : 'unchanged';
  return {
    ...base,
    direction,
    pValue,
    significant,
    verdict,
    flip: verdict === 'unchanged' && direction !== 'same',
  };
}

/** Whether `compare --fail-on` fails: any `regressed` verdict, or any comparable row whose rate fell. */
export function failsOn(
  report: ComparisonReport,
  failOn: 'regression' | 'any-regression',
): boolean {
  return report.comparisons.some(c =>
    failOn === 'regression'
      ? c.verdict === 'regressed'
      : c.verdict !== 'not_comparable' && c.direction === 'down',
  );
}
