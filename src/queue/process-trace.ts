import type { EvaluationExporter } from '../emit/otlp-evaluation-exporter.js';
import { scoreToSpan, type EvaluationSpan } from '../emit/score-to-span.js';
import type { SpanDigest } from '../ingest/span-digest.js';
import { normalizeTrace, type NormalizedTrace } from '../normalize/normalize-trace.js';
import { matchTestCase } from '../score/match-test-case.js';
import { runScorers, type ResolvedScorer, type ScorerOutcome } from '../score/run-scorers.js';
import type { TestCase } from '../score/test-case.js';
import type { Suite } from '../suite/load-suite.js';
import type { ProductionRule } from '../suite/production-rules.js';

/**
 * Which scorers a pass runs: every one (`all`: offline and the memory driver), all but the
 * LLM-judged ones (`deterministic`: the BullMQ trace worker), or only those (`llm`: the BullMQ
 * judge worker, so a slow or rate-limited judge never holds up deterministic scoring).
 */
export type ScoringPhase = 'all' | 'deterministic' | 'llm';

/** What scoring one trace produced. */
export interface TraceResult {
  phase: ScoringPhase;
  trace: NormalizedTrace;
  /** The suite, or `rule:<name>` for a production rule. */
  suite: string;
  /** The test case id, or `rule:<name>` for a production rule. */
  testCaseId: string;
  outcomes: ScorerOutcome[];
  evaluationSpans: EvaluationSpan[];
  /** In the `deterministic` phase: the LLM scorers left for the `llm` phase. */
  deferred: string[];
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
  /** @defaultValue 'all' */
  phase?: ScoringPhase;
  /** Scorer errors to reject with instead of reporting as `failed` (see `runScorers`). */
  propagate?: (error: unknown) => boolean;
}

/**
 * Scores one complete trace and writes the results back: for each suite, the trace is normalized
 * with the suite's aliases and matched to its test case by the id attributes; the case's scorers
 * run; one evaluation span per scorer is exported into the trace. A trace of no test case goes to
 * the production rules whose match and sample it passes; a trace of neither is ignored. `phase`
 * picks the scorers; a test case or rule with none in the phase gives no result, except that the
 * `deterministic` phase reports LLM scorers it left out in `deferred`. An export failure rejects
 * (`SS_EXPORT_FAILED`), so the queue retries the trace; the derived span ids make the retry
 * rewrite, not duplicate, the spans. `onResult` hears only results with outcomes.
 */
export async function processTrace(
  traceId: string,
  spans: readonly SpanDigest[],
  context: ProcessTraceContext,
): Promise<TraceResult[]> {
  const now = context.now ?? (() => process.hrtime.bigint() + epochOffset);
  const phase = context.phase ?? 'all';
  const results: TraceResult[] = [];
  const run = async (
    trace: NormalizedTrace,
    scorers: readonly ResolvedScorer[],
    testCase: TestCase | undefined,
    names: { suite: string; testCaseId: string },
    aliases: ReadonlyMap<string, string>,
  ): Promise<void> => {
    const selected =
      phase === 'all'
        ? scorers
        : scorers.filter(s => (s.scorer.kind === 'llm') === (phase === 'llm'));
    const deferred =
      phase === 'deterministic'
        ? scorers.filter(s => s.scorer.kind === 'llm').map(s => s.scorer.name)
        : [];
    if (selected.length === 0 && deferred.length === 0) return;
    const start = now();
    const outcomes = await runScorers(trace, testCase, selected, aliases, context.propagate);
    const time = { startUnixNano: start, endUnixNano: now() };
    const evaluationSpans = outcomes.map(o => scoreToSpan(trace, o, testCase, time));
    results.push({ phase, trace, ...names, outcomes, evaluationSpans, deferred });
  };
  let inSuite = false;
  for (const suite of context.suites) {
    const { trace, suiteCase } = matchTestCase(traceId, spans, suite);
    if (!suiteCase) continue;
    inSuite = true;
    await run(
      trace,
      suiteCase.scorers,
      suiteCase.testCase,
      { suite: suite.name, testCaseId: suiteCase.testCase.id },
      suite.aliases,
    );
  }
  if (!inSuite) {
    for (const rule of context.rules ?? []) {
      if (!rule.sampled(traceId)) continue;
      const trace = normalizeTrace(traceId, spans, { aliases: rule.aliases });
      if (!rule.matches(trace)) continue;
      const name = `rule:${rule.name}`;
      await run(trace, rule.scorers, undefined, { suite: name, testCaseId: name }, rule.aliases);
    }
  }
  const evaluationSpans = results.flatMap(r => r.evaluationSpans);
  if (evaluationSpans.length) await context.exporter.export(evaluationSpans);
  for (const result of results) if (result.outcomes.length) context.onResult?.(result);
  return results;
}

// hrtime is monotonic but not wall-clock; anchor it to the Unix epoch once.
const epochOffset = BigInt(Date.now()) * 1_000_000n - process.hrtime.bigint();
