/**
 * spanscore: score how AI agents use tools, from their OpenTelemetry traces.
 *
 * The library surface: trace tool calls as OTel GenAI spans (`@trace`, `traced`, `withTestCase`),
 * read OTLP traces, find their tool calls, score them with the built-in or custom scorers, and run
 * suites, all in-process. The CLI (`spanscore score`) is built on these.
 *
 * @packageDocumentation
 */

// Capture: make tool calls spans
export { TEST_CASE_ID_ATTRIBUTE } from './semconv/attributes.js';
export { trace } from './capture/trace-decorator.js';
export { traced } from './capture/traced.js';
export type { TraceOptions } from './capture/traced.js';
export { currentTestCaseId, withTestCase } from './capture/with-test-case.js';
export { captureTrace } from './capture/capture-trace.js';
export type { CaptureTraceOptions, CapturedTrace } from './capture/capture-trace.js';
export { TraceFileExporter } from './capture/trace-file-exporter.js';

// Errors
export { ERROR_CODES } from './errors/error-codes.js';
export type { ErrorCategory, ErrorCode } from './errors/error-codes.js';
export { SpanscoreError, isSpanscoreError } from './errors/spanscore-error.js';
export type { ErrorLocation } from './errors/spanscore-error.js';

// Ingest: OTLP → span digests
export { decodeOtlpJson } from './ingest/decode-otlp-json.js';
export { decodeOtlpProtobuf } from './ingest/decode-otlp-protobuf.js';
export { readTraceFiles } from './ingest/read-trace-files.js';
export { createOtlpHttpReceiver } from './ingest/otlp-http-receiver.js';
export type { OtlpHttpReceiverOptions } from './ingest/otlp-http-receiver.js';
export { createReceiverMetrics } from './ingest/receiver-metrics.js';
export type { ReceiverMetrics } from './ingest/receiver-metrics.js';
export type { SpanSink } from './ingest/span-sink.js';
export type {
  InputProblem,
  ReadTraceFilesOptions,
  TraceFilesResult,
} from './ingest/read-trace-files.js';
export type {
  AttributeValue,
  Attributes,
  DecodedRequest,
  RejectedSpan,
  SpanDigest,
  SpanEventDigest,
} from './ingest/span-digest.js';

// Normalize: tool calls, tools_used
export {
  buildAliasMap,
  canonicalToolName,
  stripToolNamespace,
} from './normalize/canonical-tool-name.js';
export { extractToolCalls } from './normalize/extract-tool-calls.js';
export type { ExtractToolCallsOptions } from './normalize/extract-tool-calls.js';
export { groupSpansByTrace } from './normalize/group-spans-by-trace.js';
export { DEFAULT_TEST_CASE_ID_ATTRIBUTES, findTestCaseId } from './normalize/find-test-case-id.js';
export { findRoot, normalizeTrace } from './normalize/normalize-trace.js';
export type { NormalizeOptions, NormalizedTrace } from './normalize/normalize-trace.js';
export type { Conversation } from './normalize/extract-conversation.js';
export type { ToolCall, ToolCallSource } from './normalize/tool-call.js';
export { toolsUsed } from './normalize/tools-used.js';
export { extractAvailableTools } from './normalize/extract-available-tools.js';
export type { OfferedTool } from './normalize/extract-available-tools.js';
export { inspectTrace, inspectionToJson } from './normalize/inspect-trace.js';
export type { Diagnostic, DiagnosticCode, TraceInspection } from './normalize/inspect-trace.js';

// Score
export { BUILTIN_SCORERS } from './score/builtin-scorers.js';
export { defineScorer } from './score/define-scorer.js';
export type { CustomScoreOutput, CustomScorerDefinition } from './score/define-scorer.js';
export { toolCallAccuracy } from './score/deterministic/tool-call-accuracy.js';
export type { ToolCallAccuracyOptions } from './score/deterministic/tool-call-accuracy.js';
export { toolCorrectness } from './score/deterministic/tool-correctness.js';
export type { ToolCorrectnessOptions } from './score/deterministic/tool-correctness.js';
export { toolTrajectory } from './score/deterministic/tool-trajectory.js';
export type { ToolTrajectoryOptions } from './score/deterministic/tool-trajectory.js';
export { compareArguments } from './score/deterministic/compare-arguments.js';
export type { ArgumentMode } from './score/deterministic/compare-arguments.js';
export { createGraderScorer } from './score/graders/create-grader-scorer.js';
export type { GraderOptions } from './score/graders/create-grader-scorer.js';
export type { GraderName } from './score/graders/grade-functions.js';
export { runScorers } from './score/run-scorers.js';
export type { Judge, JudgeAnswer, JudgeRequest, JudgeUsage } from './score/llm/judge.js';
export { createOpenAiJudge } from './judge/openai-judge.js';
export type { OpenAiJudgeOptions } from './judge/openai-judge.js';
export { createToolCallAppropriatenessScorer } from './score/llm/tool-call-appropriateness.js';
export { createRubricScorer } from './score/llm/rubric.js';
export type { RubricOptions } from './score/llm/rubric.js';
export { createLlmContext } from './judge/create-llm-context.js';
export type { JudgeConfig } from './config/config-schema.js';
export type { JudgeCallEvent, LlmContextParts } from './judge/create-llm-context.js';
export type { LlmContext } from './score/llm/llm-context.js';
export { withJudgeCache, judgeCacheKey } from './score/llm/cached-judge.js';
export { createMemoryJudgeCache } from './score/llm/judge-cache.js';
export type { CachedJudgeAnswer, JudgeCache } from './score/llm/judge-cache.js';
export { withCostAndBudget, judgeCost } from './score/llm/metered-judge.js';
export type { CostAndBudgetOptions, ModelPrice } from './score/llm/metered-judge.js';
export { withRateLimit } from './score/llm/rate-limited-judge.js';
export type { JudgeRateLimit } from './score/llm/rate-limited-judge.js';
export { createMemorySpendLedger } from './score/llm/spend-ledger.js';
export type { SpendLedger } from './score/llm/spend-ledger.js';
export type { ToolCallAppropriatenessOptions } from './score/llm/tool-call-appropriateness.js';
export type { ResolvedScorer, ScorerOutcome } from './score/run-scorers.js';
export { scoreSuite } from './score/score-suite.js';
export { scoreTrace } from './score/score-trace.js';
export type { ScoreTraceOptions } from './score/score-trace.js';
export { matchTrace } from './score/match-trace.js';
export type { ScoringTarget, TraceMatch } from './score/match-trace.js';
export type { ResultSink } from './score/result-sink.js';
export type { ScoringPhase, TraceResult, TraceRun } from './score/trace-run.js';
export type { ScoreSuiteOptions, ScoredTrace, SuiteRun } from './score/score-suite.js';
export type {
  FailedResult,
  ScoreLabel,
  ScoreResult,
  ScoredResult,
  SkippedResult,
} from './score/score-result.js';
export type { Scorer, ScorerInput, ScorerKind } from './score/scorer.js';
export type { AvailableTool, ExpectedCall, TestCase } from './score/test-case.js';

// Queue: trace assembly and the per-trace pipeline
export { createBullmqTraceSink, SCORE_TRACE_QUEUE } from './queue/bullmq-trace-assembler.js';
export type {
  BullmqTraceOptions,
  BullmqTraceSink,
  BullmqTraceSinkOptions,
} from './queue/bullmq-trace-assembler.js';
export { createRedisConnection } from './redis/redis-connection.js';
export type { RedisClient, RedisTarget } from './redis/redis-connection.js';
export { createScoreTraceWorker } from './queue/score-trace.processor.js';
export type { ScoreTraceWorkerOptions } from './queue/score-trace.processor.js';
export { createMemoryTraceAssembler } from './queue/memory-trace-assembler.js';
export type {
  MemoryTraceAssembler,
  MemoryTraceAssemblerOptions,
} from './queue/memory-trace-assembler.js';
export { createQueueDriver } from './queue/create-queue-driver.js';
export type { DriverEvents, JudgeState, QueueDriver, TraceScorer } from './queue/queue-driver.js';
export { classifyFailure } from './queue/classify-failure.js';
export type { FailureAction } from './queue/classify-failure.js';
export { isRootSpan, traceReadiness } from './queue/trace-readiness.js';
export type { Readiness, ReadinessPolicy, TraceProgress } from './queue/trace-readiness.js';

// Emit: evaluation spans written back into the evaluated trace
export {
  EVALUATION_ATTRIBUTES,
  EVALUATION_EVENT,
  GEN_AI_TOOL_ATTRIBUTES,
  SPANSCORE_ATTRIBUTES,
} from './semconv/attributes.js';
export { createEvaluationSpanSink, evaluationSpansOf } from './emit/evaluation-span-sink.js';
export { createMetricsSink } from './emit/metrics-sink.js';
export type { ScoreCounters } from './emit/metrics-sink.js';
export { createEvaluationExporter } from './emit/otlp-evaluation-exporter.js';
export type {
  EvaluationExporter,
  EvaluationExporterOptions,
} from './emit/otlp-evaluation-exporter.js';
export { evaluationSpanId, scoreToSpan } from './emit/score-to-span.js';
export type { EvaluationAttributeValue, EvaluationSpan } from './emit/score-to-span.js';

// Suites and reports
export { loadSuite, parseSuite } from './suite/load-suite.js';
export type { SuiteOptions } from './suite/load-suite.js';
export type { ProductionRule, ScoringPlan, Suite, SuiteCase } from './score/scoring-plan.js';
export { exitCodeFor, summarize, toResultRows } from './report/result-row.js';
export type { ResultRow, RunSummary, ToolCallJson } from './report/result-row.js';
