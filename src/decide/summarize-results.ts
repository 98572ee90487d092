import type { StoredResult } from '../results/stored-result.js';
import type { TrialAggregate } from './aggregate-trials.js';
import { buildRunSummary, type RunSummary } from './run-summary.js';
import { passStatistics } from './trial-statistics.js';

/**
 * A run summary of stored results (the live service's), per test case or rule × scorer, as
 * `score --summary` makes of a run: a run is a result the scorer judged (pass, fail, or a scorer
 * error, which did not pass); skipped results are not runs. Each row's scorer version is the one
 * of its newest result, and its failing traces are the newest first. Results newest first, as the
 * store lists them. Pure.
 */
export function summarizeResults(
  results: readonly StoredResult[],
  meta: {
    suite: string;
    createdAt: Date;
    labels: Record<string, string>;
    spanscoreVersion: string;
  },
): RunSummary {
  const groups = new Map<
    string,
    {
      testCaseId: string;
      scorer: string;
      scorerVersion: string;
      runs: number;
      passes: number;
      failing: string[];
    }
  >();
  // Oldest first, so that rows come in the order their test cases first appeared.
  for (let i = results.length - 1; i >= 0; i--) {
    const r = results[i]!;
    if (r.status === 'skipped') continue;
    const key = `${r.testCaseId}\u0000${r.scorer}`;
    let group = groups.get(key);
    if (!group)
      groups.set(
        key,
        (group = {
          testCaseId: r.testCaseId,
          scorer: r.scorer,
          scorerVersion: r.scorerVersion,
          runs: 0,
          passes: 0,
          failing: [],
        }),
      );
    group.scorerVersion = r.scorerVersion; // the newest wins
    group.runs++;
    if (r.label === 'pass') group.passes++;
    else group.failing.push(r.traceId);
  }
  const aggregates = [...groups.values()].map(({ failing, ...g }): TrialAggregate => ({
    ...g,
    k: g.runs,
    ...passStatistics(g.passes, g.runs, g.runs),
    failingTraceIds: failing.reverse(),
  }));
  return buildRunSummary(aggregates, meta);
}
