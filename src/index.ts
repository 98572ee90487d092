/**
 * spanscore: score how AI agents use tools, from their OpenTelemetry traces.
 *
 * The library surface, and all of it (docs/api.md lists each export with its contract; the API
 * report in `etc/spanscore.api.md` is checked by the tests, so a change here shows as a diff in
 * review): trace tool calls as OTel GenAI spans, read OTLP traces, find their tool calls, score
 * them with the built-in or custom scorers, run suites, export results as evaluation spans, and
 * start the service. The CLI is built on these. Everything else in the package (queues, Redis,
 * the receiver's parts, the judge's wrappers) is internal and may change in any release.
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

// Read: OTLP → span digests
export { decodeOtlpJson } from './ingest/decode-otlp-json.js';
export { decodeOtlpProtobuf } from './ingest/decode-otlp-protobuf.js';
export { readTraceFiles } from './ingest/read-trace-files.js';
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
  SpanKind,
  StatusCode,
} from './ingest/span-digest.js';
export type { DecodeLimits } from './ingest/decode-limits.js';

// Normalize and inspect: tool calls, tools_used, what a trace holds
export { canonicalToolName } from './normalize/canonical-tool-name.js';
export { extractToolCalls } from './normalize/extract-tool-calls.js';
export type { ExtractToolCallsOptions } from './normalize/extract-tool-calls.js';
export { groupSpansByTrace } from './normalize/group-spans-by-trace.js';
export { normalizeTrace } from './normalize/normalize-trace.js';
export type {
  NormalizeOptions,
  NormalizedTrace,
  SessionOfTrace,
  SessionTurn,
} from './normalize/normalize-trace.js';
export { sessionTrace } from './normalize/session-trace.js';
export { DEFAULT_SESSION_ID_ATTRIBUTES, findSessionId } from './normalize/find-session-id.js';
export type {
  SessionContinues,
  SessionCut,
  SessionCutCode,
  SessionPass,
} from './normalize/session-pass.js';
export type { SessionIdSource } from './normalize/find-session-id.js';
export type { Conversation } from './normalize/extract-conversation.js';
export type { ToolCall, ToolCallOutcome, ToolCallSource } from './normalize/tool-call.js';
export type { AgentTurn, Handoff } from './normalize/attribute-agents.js';
export type { OfferedTool } from './normalize/extract-available-tools.js';
export { toolsUsed } from './normalize/tools-used.js';
export { inspectTrace, inspectionToJson } from './normalize/inspect-trace.js';
export type {
  Diagnostic,
  DiagnosticCode,
  InspectedCall,
  TraceInspection,
} from './normalize/inspect-trace.js';
export type { SchemaSource } from './normalize/schema-source.js';

// Score: the scorers, custom scorers, the judge
export { defineScorer } from './score/define-scorer.js';
export type { CustomScoreOutput, CustomScorerDefinition } from './score/define-scorer.js';
export { toolCallAccuracy } from './score/deterministic/tool-call-accuracy.js';
export type { ToolCallAccuracyOptions } from './score/deterministic/tool-call-accuracy.js';
export { toolCorrectness } from './score/deterministic/tool-correctness.js';
export type { ToolCorrectnessOptions } from './score/deterministic/tool-correctness.js';
export { toolTrajectory } from './score/deterministic/tool-trajectory.js';
export type { ToolTrajectoryOptions } from './score/deterministic/tool-trajectory.js';
export type { ArgumentMode } from './score/deterministic/compare-arguments.js';
export { createGraderScorer } from './score/graders/create-grader-scorer.js';
export type { GraderOptions } from './score/graders/create-grader-scorer.js';
export type { GraderName } from './score/graders/grade-functions.js';
export { createOpenAiJudge } from './judge/openai-judge.js';
export type { OpenAiJudgeOptions } from './judge/openai-judge.js';
export type {
  Judge,
  JudgeAnswer,
  JudgeCallGate,
  JudgeRequest,
  JudgeUsage,
} from './score/llm/judge.js';
export type { LlmContext } from './score/llm/llm-context.js';
export { createToolCallAppropriatenessScorer } from './score/llm/tool-call-appropriateness.js';
export type { ToolCallAppropriatenessOptions } from './score/llm/tool-call-appropriateness.js';
export { createRubricScorer } from './score/llm/rubric.js';
export type { RubricOptions } from './score/llm/rubric.js';
export { runScorers } from './score/run-scorers.js';
export type { ResolvedScorer, ScorerOutcome } from './score/run-scorers.js';
export { scoreTrace } from './score/score-trace.js';
export type { ScoreTraceOptions } from './score/score-trace.js';
export type { SchemaLookup } from './score/schemas/schema-lookup.js';
export { scoreSession } from './score/score-session.js';
export type { ScoreSessionOptions, SessionTraceSpans } from './score/score-session.js';
export type { ScoringPhase, SessionRun, TraceResult, TraceRun } from './score/trace-run.js';
export type {
  FailedResult,
  ScoreLabel,
  ScoreResult,
  ScoredResult,
  SkippedResult,
} from './score/score-result.js';
export type { Scorer, ScorerInput, ScorerKind } from './score/scorer.js';
export type {
  AvailableTool,
  BeforeRule,
  ExpectedCall,
  ScorerRef,
  TestCase,
  TurnExpectation,
} from './score/test-case.js';
export type { NotScoredCode } from './score/match-trace.js';

// Suites and reports
export { loadSuite, parseSuite } from './suite/load-suite.js';
export type { SuiteOptions } from './suite/load-suite.js';
export type {
  ProductionRule,
  ScoringPlan,
  Suite,
  SuiteCase,
  ToolHealthRule,
  ToolHealthSessions,
  TrialsRequirement,
} from './score/scoring-plan.js';
export { scoreSuite } from './score/score-suite.js';
export type { ScoreSuiteOptions, ScoredTrace, SuiteRun } from './score/score-suite.js';
export { countOutcomes, toResultRows } from './report/result-row.js';
export type { OutcomeCounts, ResultRow, ResultSession, ToolCallJson } from './report/result-row.js';

// Results as evaluation spans, in the evaluated trace
export {
  EVALUATION_ATTRIBUTES,
  EVALUATION_EVENT,
  GEN_AI_TOOL_ATTRIBUTES,
  SPANSCORE_ATTRIBUTES,
} from './semconv/attributes.js';
export { evaluationSpansOf } from './emit/evaluation-span-sink.js';
export type { EvaluationAttributeValue, EvaluationSpan } from './emit/score-to-span.js';
export { createEvaluationExporter } from './emit/otlp-evaluation-exporter.js';
export type {
  EvaluationExporter,
  EvaluationExporterOptions,
} from './emit/otlp-evaluation-exporter.js';

// The service: receiver, queue and workers, as `spanscore serve` runs them
export { loadConfig } from './config/load-config.js';
export type { Config, JudgeConfig } from './config/config-schema.js';
export { startService } from './server/start-service.js';
export type { Service, ServiceHooks, ServiceRole } from './server/start-service.js';
export type { ResultSink } from './score/result-sink.js';

// Errors
export { ERROR_CODES } from './errors/error-codes.js';
export type { ErrorCategory, ErrorCode } from './errors/error-codes.js';
export { SpanscoreError, isSpanscoreError } from './errors/spanscore-error.js';
export type { ErrorLocation } from './errors/spanscore-error.js';
