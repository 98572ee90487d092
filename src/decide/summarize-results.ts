import type { StoredResult } from '../results/stored-result.js';
import { RUN_SUMMARY_VERSION, type RunSummary, type RunSummaryRow } from './run-summary.js';
import { passAtK, passHatK, wilsonInterval } from './trial-statistics.js';

/**
 * A run summary of stored results (the live service's), per test case or rule × scorer, as
 * `score --summary` makes of a run: a run is a result the scorer judged (pass, fail, or a scorer
 * error, which did not pass); skipped results are not runs. Each row's scorer version is the one
 * of its newest result. Results newest first, as the store lists them. Pure.
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
  const groups = new Map<string, { row: RunSummaryRow; failing: string[] }>();
  // Oldest first, so that rows come in the order their test cases first appeared.
  for (let i = results.length - 1; i >= 0; i--) {
    const r = results[i]!;
    if (r.status === 'skipped') continue;
    const key = `${r.testCaseId}\u0000${r.scorer}`;
    let group = groups.get(key);
    if (!group) {
      group = {
        row: {
          testCaseId: r.testCaseId,
          scorer: r.scorer,
          scorerVersion: r.scorerVersion,
          runs: 0,
          passes: 0,
          passRate: null,
          interval: [0, 1],
          k: 1,
          passAtK: null,
          passHatK: null,
          stability: 'no_runs',
          failingTraceIds: [],
        },
        failing: [],
      };
      groups.set(key, group);
    }
    group.row.scorerVersion = r.scorerVersion; // the newest wins
    group.row.runs++;
    if (r.label === 'pass') group.row.passes++;
    else group.failing.push(r.traceId);
  }
  const rows = [...groups.values()].map(({ row, failing }) => {
    const { runs, passes } = row;
    return {
      ...row,
      passRate: passes / runs,
      interval: wilsonInterval(passes, runs),
      k: runs,
      passAtK: passAtK(passes, runs, runs) ?? null,
      passHatK: passHatK(passes, runs, runs) ?? null,
      stability:
        passes === runs ? 'stable_pass' : passes === 0 ? 'stable_fail' : ('flaky' as const),
      // The newest failing traces: where to look first.
      failingTraceIds: failing.slice(-3).reverse(),
    } satisfies RunSummaryRow;
  });
  return {
    spanscoreRunSummary: RUN_SUMMARY_VERSION,
    suite: meta.suite,
    spanscoreVersion: meta.spanscoreVersion,
    createdAt: meta.createdAt.toISOString(),
    labels: meta.labels,
    results: rows,
  };
}
