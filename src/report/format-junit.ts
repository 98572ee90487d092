import junitModule, { type Builder } from 'junit-report-builder';

// The package's types declare an ES default export, but its CommonJS build assigns the builder to
// `module.exports`; take whichever the runtime gives.
const junit = ((junitModule as unknown as { default?: Builder }).default ??
  junitModule) as unknown as Builder;
import type { TrialAggregate } from '../decide/aggregate-trials.js';
import type { ResultRow } from './result-row.js';

/**
 * `junit`: JUnit XML that CI systems read. One `<testsuite>` for the suite, one `<testcase>` per
 * test case × scorer (× trace), named `<test case> › <scorer>`: a fail label or a missing trace is
 * a `<failure>`, a scorer error an `<error>`, a skipped result `<skipped/>`. A test case with a
 * `trials` requirement is one `<testcase>` per scorer instead, named
 * `<test case> › <scorer> › trials`, failed when the requirement is not met; its output lists
 * every run.
 */
export function formatJunit(
  rows: readonly ResultRow[],
  suiteName: string,
  trials: readonly TrialAggregate[] = [],
): string {
  const builder = junit.newBuilder();
  const suite = builder.testSuite().name(suiteName);
  const required = new Map(
    trials.filter(t => t.required).map(t => [`${t.testCaseId}\u0000${t.scorer}`, t]),
  );
  for (const t of required.values()) {
    const tc = suite.testCase().className(suiteName).name(`${t.testCaseId} › ${t.scorer} › trials`);
    const runs = rows
      .filter(r => r.testCaseId === t.testCaseId && r.scorer === t.scorer)
      .map(
        r =>
          `${r.traceId ?? '(no trace)'}: ${r.status === 'scored' ? r.label : r.status}: ${r.reason}`,
      );
    const rate = t.runs ? `${t.passes}/${t.runs} passed` : 'no runs';
    tc.standardOutput([`${rate}, ${t.stability}`, ...runs].join('\n'));
    const need = `needs ≥${t.required!.min} runs and a pass rate ≥${t.required!.passRate}`;
    if (t.required!.outcome === 'too_few_runs')
      tc.failure(`${t.runs} run(s): ${need}`, 'TooFewRuns');
    else if (t.required!.outcome === 'fail')
      tc.failure(`${rate}: ${need}`, 'PassRateBelowRequired');
  }
  for (const row of rows) {
    if (required.has(`${row.testCaseId}\u0000${row.scorer}`)) continue;
    const tc = suite.testCase().className(suiteName).name(`${row.testCaseId} › ${row.scorer}`);
    const out = [
      `traceId: ${row.traceId ?? '(none)'}`,
      `score: ${row.score ?? '-'}`,
      `toolsUsed: ${row.toolsUsed.join(', ')}`,
      `reason: ${row.reason}`,
    ];
    tc.standardOutput(out.join('\n'));
    if (row.status === 'skipped') tc.skipped();
    else if (row.status === 'failed')
      tc.error(
        row.reason,
        typeof row.details.errorType === 'string' ? row.details.errorType : 'Error',
      );
    else if (row.status === 'missing') tc.failure(row.reason, 'MissingTrace');
    else if (row.label === 'fail')
      tc.failure(`score ${row.score}: ${row.reason}`, 'ScoreBelowThreshold');
  }
  return builder.build();
}
