import junitModule, { type Builder } from 'junit-report-builder';

// The package's types declare an ES default export, but its CommonJS build assigns the builder to
// `module.exports`; take whichever the runtime gives.
const junit = ((junitModule as unknown as { default?: Builder }).default ??
  junitModule) as unknown as Builder;
import type { TrialAggregate } from '../decide/aggregate-trials.js';
import type { ResultRow } from './result-row.js';

/** Characters XML 1.0 cannot hold, as text or in CDATA (a trace may carry any of them). */
// eslint-disable-next-line no-control-regex
const NOT_XML = /[^\u0009\u000A\u000D\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

/** Text from a trace or suite for an XML attribute or element: what XML cannot hold becomes U+FFFD. */
function xmlText(text: string): string {
  return text.replace(NOT_XML, '\uFFFD');
}

/**
 * Text for a CDATA section (junit-report-builder puts output, failure and error text in one):
 * every `]]>` must end the section and open a new one, or the text could close it and write
 * elements of its own. The builder's own escaping (xmlbuilder's `cdata`) replaces only the first
 * occurrence; every later one is split here, after it, so the builder's replacement still finds
 * the first. A test parses the XML of text holding several.
 */
function cdataText(text: string): string {
  const safe = xmlText(text);
  const first = safe.indexOf(']]>');
  if (first < 0) return safe;
  const rest = first + 3;
  return safe.slice(0, rest) + safe.slice(rest).replaceAll(']]>', ']]]]><![CDATA[>');
}

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
  const suite = builder.testSuite().name(xmlText(suiteName));
  const required = new Map(
    trials.filter(t => t.required).map(t => [`${t.testCaseId}\u0000${t.scorer}`, t]),
  );
  for (const t of required.values()) {
    const tc = suite
      .testCase()
      .className(xmlText(suiteName))
      .name(xmlText(`${t.testCaseId} › ${t.scorer} › trials`));
    const runs = rows
      .filter(r => r.testCaseId === t.testCaseId && r.scorer === t.scorer)
      .map(
        r =>
          `${r.traceId ?? '(no trace)'}: ${r.status === 'scored' ? r.label : r.status}: ${r.reason}`,
      );
    const rate = t.runs ? `${t.passes}/${t.runs} passed` : 'no runs';
    tc.standardOutput(cdataText([`${rate}, ${t.stability}`, ...runs].join('\n')));
    const need = `needs ≥${t.required!.min} runs and a pass rate ≥${t.required!.passRate}`;
    if (t.required!.outcome === 'too_few_runs')
      tc.failure(xmlText(`${t.runs} run(s): ${need}`), 'TooFewRuns');
    else if (t.required!.outcome === 'fail')
      tc.failure(xmlText(`${rate}: ${need}`), 'PassRateBelowRequired');
  }
  for (const row of rows) {
    if (required.has(`${row.testCaseId}\u0000${row.scorer}`)) continue;
    const tc = suite
      .testCase()
      .className(xmlText(suiteName))
      .name(xmlText(`${row.testCaseId} › ${row.scorer}`));
    const out = [
      `traceId: ${row.traceId ?? '(none)'}`,
      `score: ${row.score ?? '-'}`,
      `toolsUsed: ${row.toolsUsed.join(', ')}`,
      `reason: ${row.reason}`,
    ];
    tc.standardOutput(cdataText(out.join('\n')));
    if (row.status === 'skipped') tc.skipped();
    else if (row.status === 'failed')
      tc.error(
        xmlText(row.reason),
        xmlText(typeof row.details.errorType === 'string' ? row.details.errorType : 'Error'),
      );
    else if (row.status === 'missing') tc.failure(xmlText(row.reason), 'MissingTrace');
    else if (row.label === 'fail')
      tc.failure(xmlText(`score ${row.score}: ${row.reason}`), 'ScoreBelowThreshold');
  }
  return builder.build();
}
