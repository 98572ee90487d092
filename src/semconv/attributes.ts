/**
 * Every attribute key spanscore writes, and the keys of its own that it reads, defined once.
 * Capture (`traced()`, `withTestCase()`) writes them, normalization reads them, and evaluation
 * spans carry them. Conventions read from other frameworks stay in their extractor files.
 */

/** Keys in the `spanscore.*` namespace: what no OpenTelemetry convention defines yet. */
export const SPANSCORE_ATTRIBUTES = {
  /** Ties a trace to a suite's test case (also the baggage key `withTestCase()` sets). */
  testCaseId: 'spanscore.test_case.id',
  /** Ties a trace to a session (a conversation, one trace per turn), when no convention does. */
  sessionId: 'spanscore.session.id',
  /** `true` on a trace that ends its session: the session is scored without waiting. */
  sessionEnd: 'spanscore.session.end',
  /** The agent's input and final output, when the root span states them explicitly. */
  input: 'spanscore.input',
  output: 'spanscore.output',
} as const;

/** OTel GenAI `execute_tool` span attributes, as `traced()` writes them and extractors read them. */
export const GEN_AI_TOOL_ATTRIBUTES = {
  operationName: 'gen_ai.operation.name',
  toolName: 'gen_ai.tool.name',
  toolType: 'gen_ai.tool.type',
  toolDescription: 'gen_ai.tool.description',
  toolCallId: 'gen_ai.tool.call.id',
  toolCallArguments: 'gen_ai.tool.call.arguments',
  toolCallResult: 'gen_ai.tool.call.result',
  errorType: 'error.type',
  agentName: 'gen_ai.agent.name',
} as const;

/**
 * Every attribute key on evaluation spans. The `gen_ai.evaluation.*` keys are the OTel GenAI
 * evaluation event's (semantic conventions v1.38+, development status); `spanscore.*` keys carry
 * what no convention defines yet.
 */
/**
 * Langfuse's SDKs (v3+, on OpenTelemetry): what an observation is and what went in and out of it
 * (JSON strings), its level (`ERROR` for a failure) and status message; trace metadata keys.
 */
export const LANGFUSE_ATTRIBUTES = {
  observationType: 'langfuse.observation.type',
  observationInput: 'langfuse.observation.input',
  observationOutput: 'langfuse.observation.output',
  observationLevel: 'langfuse.observation.level',
  observationStatusMessage: 'langfuse.observation.status_message',
  traceMetadataTestCaseId: 'langfuse.trace.metadata.testCaseId',
  sessionId: 'langfuse.session.id',
} as const;

/** Keys LangSmith's OTel mode writes that spanscore reads beyond the GenAI ones. */
export const LANGSMITH_ATTRIBUTES = {
  spanKind: 'langsmith.span.kind',
  /** `traceable(fn, { metadata: { testCaseId } })`, inherited by every child run. */
  metadataTestCaseId: 'langsmith.metadata.testCaseId',
} as const;

/** Keys `@mastra/otel-exporter` writes that spanscore reads beyond the GenAI ones. */
export const MASTRA_ATTRIBUTES = {
  spanType: 'mastra.span.type',
  /** `tracingOptions: { metadata: { testCaseId } }`, written on every span of the run. */
  metadataTestCaseId: 'mastra.metadata.testCaseId',
  /** A model chunk's content as JSON: text, or a tool call `{toolName, toolCallId, toolInput}`. */
  modelChunkOutput: 'mastra.model_chunk.output',
} as const;

/**
 * Keys Genkit 1.x writes on its action spans (`@genkit-ai/core/tracing`): what the action is
 * (`model`, `tool`, `flow`, …), its name and path, its input and output as JSON strings, and how it
 * ended (`success` or `error`).
 */
export const GENKIT_ATTRIBUTES = {
  subtype: 'genkit:metadata:subtype',
  name: 'genkit:name',
  path: 'genkit:path',
  input: 'genkit:input',
  output: 'genkit:output',
  state: 'genkit:state',
  /** `setCustomMetadataAttribute('testCaseId', id)` inside a flow: set on the flow's span. */
  metadataTestCaseId: 'genkit:metadata:testCaseId',
} as const;

export const EVALUATION_ATTRIBUTES = {
  name: 'gen_ai.evaluation.name',
  scoreValue: 'gen_ai.evaluation.score.value',
  scoreLabel: 'gen_ai.evaluation.score.label',
  explanation: 'gen_ai.evaluation.explanation',
  errorType: GEN_AI_TOOL_ATTRIBUTES.errorType,
  status: 'spanscore.evaluation.status',
  scorerKind: 'spanscore.scorer.kind',
  /** A hash of the scorer's name, kind and validated options: results of one version compare. */
  scorerVersion: 'spanscore.scorer.version',
  /** The evaluated trace's root `service.name` (the evaluation span's own is `spanscore`). */
  evaluatedServiceName: 'spanscore.evaluated.service.name',
  /** The evaluated trace's `gen_ai.agent.name`, when a span has one. */
  evaluatedAgentName: 'spanscore.evaluated.agent.name',
  /** The evaluated trace's route: its agents in the order they took control (multi-agent). */
  agents: 'spanscore.agents',
  /** The agents a failing result blames: who made the wrong call, or handed off the wrong way. */
  failingAgents: 'spanscore.failing_agents',
  testCaseId: SPANSCORE_ATTRIBUTES.testCaseId,
  /** A session's result (on its last turn's root): the session id, its turns, the first failing one. */
  sessionId: SPANSCORE_ATTRIBUTES.sessionId,
  sessionTurns: 'spanscore.session.turns',
  failingTurn: 'spanscore.session.failing_turn',
  /** The production rule the result is of (`rule:<name>`, `rule:tool-health`); absent for a test case. */
  rule: 'spanscore.rule',
  toolsUsed: 'spanscore.tools_used',
  toolSequence: 'spanscore.tool_sequence',
  expectedTools: 'spanscore.expected_tools',
  missingTools: 'spanscore.missing_tools',
  unexpectedTools: 'spanscore.unexpected_tools',
  requestModel: 'gen_ai.request.model',
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  judgeCached: 'spanscore.judge.cached',
  judgeCostUsd: 'spanscore.judge.cost_usd',
  /**
   * The attributes of this span cut to `RESULT_BOUNDS`, each as
   * `<key>: <kept> of <all> items` (a list: its first items kept) or
   * `<key>: <kept> of <all> characters` (a text: its start kept, ending `…`); absent when none was.
   */
  cutAttributes: 'spanscore.evaluation.cut_attributes',
} as const;

/** The span event that repeats the result (the OTel `gen_ai.evaluation.result` event). */
export const EVALUATION_EVENT = 'gen_ai.evaluation.result';

/** {@link SPANSCORE_ATTRIBUTES}.testCaseId, under the name the public API has always used. */
export const TEST_CASE_ID_ATTRIBUTE = SPANSCORE_ATTRIBUTES.testCaseId;
