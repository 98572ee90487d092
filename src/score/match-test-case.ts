import type { SpanDigest } from '../ingest/span-digest.js';
import { normalizeTrace, type NormalizedTrace } from '../normalize/normalize-trace.js';
import type { Suite, SuiteCase } from '../suite/load-suite.js';

/**
 * Reads a trace as a suite sees it (its aliases, its test-case id attributes) and finds the test
 * case the trace belongs to, if any. Offline scoring and the live pipeline both start here.
 */
export function matchTestCase(
  traceId: string,
  spans: readonly SpanDigest[],
  suite: Suite,
): { trace: NormalizedTrace; suiteCase: SuiteCase | undefined } {
  const trace = normalizeTrace(traceId, spans, {
    aliases: suite.aliases,
    testCaseIdAttributes: suite.testCaseIdAttributes,
  });
  const suiteCase = trace.testCaseId === undefined ? undefined : suite.byId.get(trace.testCaseId);
  return { trace, suiteCase };
}
