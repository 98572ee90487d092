import type { ResultRow } from '../report/result-row.js';
import { scorerVersion } from '../score/run-scorers.js';
import type { Suite, TrialsRequirement } from '../score/scoring-plan.js';
import { passStatistics, type Stability } from './trial-statistics.js';

/**
 * The runs of one test case × scorer, aggregated. A run is a trace of the test case the scorer
 * judged: a pass, a fail, or a scorer error (a run that did not pass). Skipped results judged
 * nothing and are not runs; a test case with no trace has 0 runs.
 */
export interface TrialAggregate {
  testCaseId: string;
  scorer: string;
  /** The scorer's configuration hash (`spanscore.scorer.version`); null when the suite lacks it. */
  scorerVersion: string | null;
  runs: number;
  passes: number;
  /** `passes / runs`; null with no runs. */
  passRate: number | null;
  /** The 95% Wilson interval of the pass rate. */
  interval: [number, number];
  k: number;
  /** `pass@k` and `pass^k` for `k`; null when there are fewer runs than `k`. */
  passAtK: number | null;
  passHatK: number | null;
  stability: Stability;
  /** Traces of runs that did not pass, in order: where to look. */
  failingTraceIds: string[];
  /** The requirement and whether it is met, when the suite sets `trials`. */
  required?: TrialsRequirement & {
    outcome: 'pass' | 'fail' | 'too_few_runs';
  };
}

/**
 * Aggregates a run's result rows per test case × scorer, in first-seen order, with the suite's
 * trial requirements. Pure.
 */
export function aggregateTrials(rows: readonly ResultRow[], suite: Suite): TrialAggregate[] {
  const groups = new Map<string, { testCaseId: string; scorer: string; rows: ResultRow[] }>();
  for (const row of rows) {
    const key = `${row.testCaseId}\u0000${row.scorer}`;
    let group = groups.get(key);
    if (!group)
      groups.set(key, (group = { testCaseId: row.testCaseId, scorer: row.scorer, rows: [] }));
    group.rows.push(row);
  }
  return [...groups.values()].map(({ testCaseId, scorer, rows: group }) => {
    const suiteCase = suite.byId.get(testCaseId);
    const resolved = suiteCase?.scorers.find(s => s.scorer.name === scorer);
    let runs = 0;
    let passes = 0;
    const failingTraceIds: string[] = [];
    for (const row of group) {
      if (row.status === 'skipped' || row.status === 'missing') continue;
      runs++;
      if (row.status === 'scored' && row.label === 'pass') passes++;
      else if (row.traceId) failingTraceIds.push(row.traceId);
    }
    const requirement = suiteCase?.trials;
    const k = requirement?.k ?? Math.max(1, runs);
    const aggregate: TrialAggregate = {
      testCaseId,
      scorer,
      scorerVersion: resolved ? scorerVersion(resolved) : null,
      runs,
      passes,
      k,
      ...passStatistics(passes, runs, k),
      failingTraceIds,
    };
    if (requirement)
      aggregate.required = {
        ...requirement,
        outcome:
          runs < requirement.min
            ? 'too_few_runs'
            : passes / runs >= requirement.passRate
              ? 'pass'
              : 'fail',
      };
    return aggregate;
  });
}
