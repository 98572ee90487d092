/**
 * Every attribute key spanscore writes on evaluation spans, defined once. The `gen_ai.evaluation.*`
 * keys are the OTel GenAI evaluation event's (semantic conventions v1.38+, development status);
 * `spanscore.*` keys carry what no convention defines yet.
 */
export const EVALUATION_ATTRIBUTES = {
  name: 'gen_ai.evaluation.name',
  scoreValue: 'gen_ai.evaluation.score.value',
  scoreLabel: 'gen_ai.evaluation.score.label',
  explanation: 'gen_ai.evaluation.explanation',
  errorType: 'error.type',
  status: 'spanscore.evaluation.status',
  scorerKind: 'spanscore.scorer.kind',
  testCaseId: 'spanscore.test_case.id',
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
} as const;

/** The span event that repeats the result (the OTel `gen_ai.evaluation.result` event). */
export const EVALUATION_EVENT = 'gen_ai.evaluation.result';
