import junitModule, { type Builder } from 'junit-report-builder';

// The package's types declare an ES default export, but its CommonJS build assigns the builder to
// `module.exports`; take whichever the runtime gives.
const junit = ((junitModule as unknown as { default?: Builder }).default ??
  junitModule) as unknown as Builder;
import type { ResultRow } from './result-row.js';

/**
 * `junit`: JUnit XML that CI systems read. One `<testsuite>` for the suite, one `<testcase>` per
 * test case × scorer (× trace), named `<test case> › <scorer>`: a fail label or a missing trace is
 * a `<failure>`, a scorer error an `<error>`, a skipped result `<skipped/>`.
 */
export function formatJunit(rows: readonly ResultRow[], suiteName: string): string {
  const builder = junit.newBuilder();
  const suite = builder.testSuite().name(suiteName);
  for (const row of rows) {
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
