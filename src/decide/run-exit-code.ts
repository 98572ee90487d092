import type { ResultRow } from '../report/result-row.js';
import type { TrialAggregate } from './aggregate-trials.js';
import type { ComparisonReport } from './compare-summaries.js';

/**
 * The exit code of `spanscore score`: 2 when any input was rejected. Else, with a baseline, the
 * comparison's decision decides (1 when it failed under its `--fail-on`): a case that failed before and still
 * fails does not fail the build, a worse one does. Without one, each test case × scorer with a
 * `trials` requirement fails when the requirement is not met (too few runs included), and every
 * other result as before: 1 for a fail label, a scorer error or a test case with no trace.
 */
export function runExitCode(run: {
  rows: readonly ResultRow[];
  trials: readonly TrialAggregate[];
  inputProblems: number;
  comparison?: ComparisonReport;
}): 0 | 1 | 2 {
  if (run.inputProblems > 0) return 2;
  if (run.comparison) return run.comparison.decision.outcome === 'failed' ? 1 : 0;
  const required = new Set(
    run.trials.filter(t => t.required).map(t => `${t.testCaseId}\u0000${t.scorer}`),
  );
  if (run.trials.some(t => t.required && t.required.outcome !== 'pass')) return 1;
  const failing = run.rows.some(
    r =>
      !required.has(`${r.testCaseId}\u0000${r.scorer}`) &&
      (r.label === 'fail' || r.status === 'failed' || r.status === 'missing'),
  );
  return failing ? 1 : 0;
}
