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

/** What a comparison fails on (`--fail-on`): a significant regression, or any fall of a pass rate. */
export type FailOn = 'regression' | 'any-regression';

/**
 * The verdict that decides the exit code, under the `--fail-on` given: `failed` (exit 1),
 * `passed` (exit 0), or `informational` (no `--fail-on`: exit 0 whatever moved). `failing` lists
 * the rows that fail it, or, when informational, the rows `--fail-on regression` would fail on.
 */
export interface ComparisonDecision {
  failOn: FailOn | null;
  outcome: 'failed' | 'passed' | 'informational';
  failing: Array<{ testCaseId: string; scorer: string; verdict: Verdict; flip: boolean }>;
}

/** What `compare` prints as JSON. */
export interface ComparisonReport {
  baseline: { suite: string; createdAt: string; labels: Record<string, string> };
  current: { suite: string; createdAt: string; labels: Record<string, string> };
  alpha: number;
  comparisons: Comparison[];
  summary: ComparisonSummary;
  decision: ComparisonDecision;
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
  options: { alpha?: number; failOn?: FailOn } = {},
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
  const failOn = options.failOn ?? null;
  const failing = comparisons
    .filter(c => fallsUnder(c, failOn ?? 'regression'))
    .map(c => ({ testCaseId: c.testCaseId, scorer: c.scorer, verdict: c.verdict, flip: c.flip }));
  const decision: ComparisonDecision = {
    failOn,
    outcome: failOn === null ? 'informational' : failing.length ? 'failed' : 'passed',
    failing,
  };
  return {
    baseline: meta(baseline),
    current: meta(current),
    alpha,
    comparisons,
    summary,
    decision,
  };
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

/** Whether one row fails `--fail-on`: a `regressed` verdict, or any comparable row whose rate fell. */
function fallsUnder(c: Comparison, failOn: FailOn): boolean {
  return failOn === 'regression'
    ? c.verdict === 'regressed'
    : c.verdict !== 'not_comparable' && c.direction === 'down';
}
