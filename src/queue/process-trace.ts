import type { EvaluationExporter } from '../emit/otlp-evaluation-exporter.js';
import { scoreToSpan, type EvaluationSpan } from '../emit/score-to-span.js';
import type { SpanDigest } from '../ingest/span-digest.js';
import { normalizeTrace, type NormalizedTrace } from '../normalize/normalize-trace.js';
import { matchTestCase } from '../score/match-test-case.js';
import { runScorers, type ScorerOutcome } from '../score/run-scorers.js';
import type { Suite } from '../suite/load-suite.js';
import type { ProductionRule } from '../suite/production-rules.js';

/** What scoring one trace produced. */
export interface TraceResult {
  trace: NormalizedTrace;
  /** The suite, or `rule:<name>` for a production rule. */
  suite: string;
  /** The test case id, or `rule:<name>` for a production rule. */
  testCaseId: string;
  outcomes: ScorerOutcome[];
  evaluationSpans: EvaluationSpan[];
}

/** What {@link processTrace} needs; every part is injected so both queue drivers share it. */
export interface ProcessTraceContext {
  suites: readonly Suite[];
  /** Production rules, applied to traces that belong to no suite's test case. */
  rules?: readonly ProductionRule[];
  exporter: EvaluationExporter;
  /** Called once per scored test case, after the export succeeded (JSONL file, log line, metrics). */
  onResult?: (result: TraceResult) => void;
  /** The clock, in Unix nanoseconds. */
  now?: () => bigint;
}

/**
 * Scores one complete trace and writes the results back: for each suite, the trace is normalized
 * with the suite's aliases and matched to its test case by the id attributes; the case's scorers
 * run; one evaluation span per scorer is exported into the trace. A trace of no test case goes to
 * the production rules whose match and sample it passes; a trace of neither is ignored. An export failure rejects (`SS_EXPORT_FAILED`), so the queue retries the trace; the
 * derived span ids make the retry rewrite, not duplicate, the spans.
 */
export async function processTrace(
  traceId: string,
  spans: readonly SpanDigest[],
  context: ProcessTraceContext,
): Promise<TraceResult[]> {
  const now = context.now ?? (() => process.hrtime.bigint() + epochOffset);
  const results: TraceResult[] = [];
  for (const suite of context.suites) {
    const { trace, suiteCase } = matchTestCase(traceId, spans, suite);
    if (!suiteCase) continue;
    const start = now();
    const outcomes = await runScorers(trace, suiteCase.testCase, suiteCase.scorers, suite.aliases);
    const time = { startUnixNano: start, endUnixNano: now() };
    const evaluationSpans = outcomes.map(o => scoreToSpan(trace, o, suiteCase.testCase, time));
    results.push({
      trace,
      suite: suite.name,
      testCaseId: suiteCase.testCase.id,
      outcomes,
      evaluationSpans,
    });
  }
  if (results.length === 0) {
    for (const rule of context.rules ?? []) {
      if (!rule.sampled(traceId)) continue;
      const trace = normalizeTrace(traceId, spans, { aliases: rule.aliases });
      if (!rule.matches(trace)) continue;
      const start = now();
      const outcomes = await runScorers(trace, undefined, rule.scorers, rule.aliases);
      const time = { startUnixNano: start, endUnixNano: now() };
      const evaluationSpans = outcomes.map(o => scoreToSpan(trace, o, undefined, time));
      results.push({
        trace,
        suite: `rule:${rule.name}`,
        testCaseId: `rule:${rule.name}`,
        outcomes,
        evaluationSpans,
      });
    }
  }
  await context.exporter.export(results.flatMap(r => r.evaluationSpans));
  for (const result of results) context.onResult?.(result);
  return results;
}

// hrtime is monotonic but not wall-clock; anchor it to the Unix epoch once.
const epochOffset = BigInt(Date.now()) * 1_000_000n - process.hrtime.bigint();
