import { hash } from 'node:crypto';
import { failingAgents, type FailingAgentsRest } from '../score/failing-agents.js';
import { expectedToolsOf } from '../score/expected-tools.js';
import type { NormalizedTrace } from '../normalize/normalize-trace.js';
import type { ScorerOutcome } from '../score/run-scorers.js';
import type { TestCase } from '../score/test-case.js';
import { EVALUATION_ATTRIBUTES as A, EVALUATION_EVENT } from '../semconv/attributes.js';
import { boundedList, boundedText } from '../results/result-bounds.js';
import { plainRecord } from './plain-record.js';

/** A span attribute value as evaluation spans use them. */
export type EvaluationAttributeValue = string | number | boolean | string[];

/** One evaluation span, ready to export: in the evaluated trace, under the evaluated span. */
export interface EvaluationSpan {
  traceId: string;
  /** Derived from (trace, scorer, test case): a retried job rewrites this span, never adds one. */
  spanId: string;
  /** The evaluated span: the trace's root (the agent run). */
  parentSpanId: string;
  name: string;
  startTimeUnixNano: bigint;
  endTimeUnixNano: bigint;
  attributes: Record<string, EvaluationAttributeValue>;
  /** A link to the evaluated span, as OpenInference's annotation spec asks of post-hoc carriers. */
  link: { traceId: string; spanId: string };
  /**
   * A session's result: a link to the root of each earlier turn (`link.type: session_turn`,
   * `spanscore.session.turn`: its number from 1); empty for a trace's result.
   */
  turnLinks: Array<{ traceId: string; spanId: string; turn: number }>;
  event: {
    name: string;
    timeUnixNano: bigint;
    attributes: Record<string, EvaluationAttributeValue>;
  };
  /** ERROR when the scorer failed. */
  statusCode: 0 | 2;
  statusMessage: string;
}

/** Usage an LLM scorer reports in its details, copied to the span when present. */
interface UsageDetails {
  model?: unknown;
  inputTokens?: unknown;
  outputTokens?: unknown;
  cached?: unknown;
  costUsd?: unknown;
}

/**
 * Turns one scorer outcome on a trace into its evaluation span (pure). Attributes: the
 * `gen_ai.evaluation.*` name, score value and label (only for scored results: a skipped or failed
 * result is never a number), explanation, `error.type` on failure, and spanscore's tools used, tool
 * sequence, expected, missing and unexpected tools, test case id (and, for a production rule's
 * result, `spanscore.rule`: `rule:<name>`, `rule:tool-health`) and scorer kind. The
 * `gen_ai.evaluation.result` event repeats the evaluation attributes. A text or list from the trace
 * is carried within `RESULT_BOUNDS`; each attribute cut is named in
 * `spanscore.evaluation.cut_attributes`.
 */
export function scoreToSpan(
  trace: NormalizedTrace,
  outcome: ScorerOutcome,
  testCase: TestCase | undefined,
  time: { startUnixNano: bigint; endUnixNano: bigint },
  rule?: string,
): EvaluationSpan {
  return scoreToSpanOf(traceFacts(trace), outcome, testCase, time, rule);
}

/**
 * What every evaluation span of one trace states alike (its tool sequence's names, its agents,
 * its earlier turns' links), worked out once for all its outcomes: the spans share these arrays,
 * which nothing changes once built.
 */
export interface TraceFacts {
  trace: NormalizedTrace;
  /** The trace's lists as its spans carry them (`RESULT_BOUNDS`). */
  toolsUsed: string[];
  toolSequence: string[];
  agents: string[] | undefined;
  /** What of the lists above the bounds cut, as `spanscore.evaluation.cut_attributes` says it; absent when nothing. */
  cut: string[] | undefined;
  turnLinks: EvaluationSpan['turnLinks'];
  /**
   * The expected tools of the last test case a span was made for (`expectedToolsOf`): the
   * outcomes of one result share its test case, and so this array.
   */
  expected?: { of: TestCase | undefined; tools: string[] | undefined; cut: string[] };
}

/** A trace's {@link TraceFacts}. */
export function traceFacts(trace: NormalizedTrace): TraceFacts {
  const turnLinks: EvaluationSpan['turnLinks'] = [];
  const turns = trace.session?.turns;
  if (turns)
    for (let i = 0; i < turns.length; i++) {
      const t = turns[i]!;
      if (t.rootSpanId && t.traceId !== trace.traceId)
        turnLinks.push({ traceId: t.traceId, spanId: t.rootSpanId, turn: i + 1 });
    }
  const cut: string[] = [];
  const agents = trace.agents.length ? trace.agents.map(t => t.agent) : undefined;
  return {
    trace,
    toolsUsed: boundedList(A.toolsUsed, trace.toolsUsed, cut),
    toolSequence: boundedList(
      A.toolSequence,
      trace.toolSequence.map(c => c.name),
      cut,
    ),
    agents: agents && boundedList(A.agents, agents, cut),
    cut: cut.length ? cut : undefined,
    turnLinks,
    expected: undefined,
  };
}

/** No details (a skipped or failed result), no usage: read, never written. */
const NONE: Readonly<Record<string, unknown>> = Object.freeze({});

/** {@link scoreToSpan} with its trace's {@link TraceFacts} worked out already. */
export function scoreToSpanOf(
  facts: TraceFacts,
  outcome: ScorerOutcome,
  testCase: TestCase | undefined,
  time: { startUnixNano: bigint; endUnixNano: bigint },
  rule?: string,
): EvaluationSpan {
  const trace = facts.trace;
  const evaluated = trace.root?.spanId ?? trace.spans[0]?.spanId ?? '';
  const result = outcome.result;
  // What the bounds cut of this span's own values (the trace's lists' are in `facts.cut`).
  const cut = SPAN_CUT;
  cut.length = 0;
  const evaluation = plainRecord<EvaluationAttributeValue>();
  evaluation[A.name] = outcome.scorer;
  evaluation[A.status] = result.status;
  let explanation: string;
  if (result.status === 'scored') {
    evaluation[A.scoreValue] = result.score;
    evaluation[A.scoreLabel] = result.label;
    evaluation[A.explanation] = explanation = boundedText(A.explanation, result.reason, cut);
  } else if (result.status === 'skipped') {
    evaluation[A.explanation] = explanation = boundedText(A.explanation, result.reason, cut);
  } else {
    evaluation[A.explanation] = explanation = boundedText(A.explanation, result.error, cut);
    evaluation[A.errorType] = boundedText(A.errorType, result.errorType, cut);
  }
  const details = result.status === 'scored' ? result.details : NONE;
  // Built by plain stores, not `{ ...evaluation, [key]: … }`: V8 made that literal of computed
  // keys a dictionary-mode object, about 3 kB a span more (issue 60). Same keys, same order.
  // plainRecord, not `{}`: 14–16 keys fit in the object itself (about 150 heap bytes less a span).
  const attributes = plainRecord<EvaluationAttributeValue>();
  for (const key in evaluation) attributes[key] = evaluation[key]!;
  attributes[A.scorerKind] = outcome.kind;
  attributes[A.toolsUsed] = facts.toolsUsed;
  attributes[A.toolSequence] = facts.toolSequence;
  if (outcome.version) attributes[A.scorerVersion] = outcome.version;
  if (trace.serviceName) attributes[A.evaluatedServiceName] = trace.serviceName;
  const agentName = trace.agentName;
  if (agentName) attributes[A.evaluatedAgentName] = agentName;
  if (facts.agents) {
    attributes[A.agents] = facts.agents;
    const blamed = failingAgents(result, BLAMED_REST);
    if (blamed.length) {
      const notes = cut.length;
      attributes[A.failingAgents] = boundedList(A.failingAgents, blamed, cut);
      if (BLAMED_REST.more > 0) {
        // One note of the agents kept and all blamed, whichever bound left the rest out.
        const kept = (attributes[A.failingAgents] as string[]).length;
        cut.length = notes;
        cut.push(`${A.failingAgents}: ${kept} of ${blamed.length + BLAMED_REST.more} items`);
      }
    }
  }
  const testCaseId = testCase?.id ?? trace.testCaseId;
  if (testCaseId) attributes[A.testCaseId] = boundedText(A.testCaseId, testCaseId, cut);
  const session = trace.session;
  if (session) {
    attributes[A.sessionId] = session.id;
    attributes[A.sessionTurns] = session.turns.length;
    if (typeof details.failingTurn === 'number') attributes[A.failingTurn] = details.failingTurn;
  }
  if (rule) attributes[A.rule] = rule;
  // As the results store and the reports state them (one order of precedence everywhere).
  let memo = facts.expected;
  if (memo === undefined || memo.of !== testCase) {
    const tools = expectedToolsOf(testCase);
    const expectedCut: string[] = [];
    facts.expected = memo = {
      of: testCase,
      tools: tools && boundedList(A.expectedTools, tools, expectedCut),
      cut: expectedCut,
    };
  }
  const expected = memo.tools;
  if (expected) attributes[A.expectedTools] = expected;
  const missing = stringList(details.missingTools);
  if (missing) attributes[A.missingTools] = boundedList(A.missingTools, missing, cut);
  const unexpected = stringList(details.unexpectedTools);
  if (unexpected) attributes[A.unexpectedTools] = boundedList(A.unexpectedTools, unexpected, cut);
  const usage = (details.usage ?? NONE) as UsageDetails;
  if (typeof usage.model === 'string')
    attributes[A.requestModel] = boundedText(A.requestModel, usage.model, cut);
  if (typeof usage.inputTokens === 'number') attributes[A.inputTokens] = usage.inputTokens;
  if (typeof usage.outputTokens === 'number') attributes[A.outputTokens] = usage.outputTokens;
  if (typeof usage.cached === 'boolean') attributes[A.judgeCached] = usage.cached;
  if (typeof usage.costUsd === 'number') attributes[A.judgeCostUsd] = usage.costUsd;
  if (facts.cut || memo.cut.length || cut.length)
    attributes[A.cutAttributes] = [...(facts.cut ?? []), ...memo.cut, ...cut];
  return {
    traceId: trace.traceId,
    spanId: evaluationSpanId(trace.traceId, outcome.scorer, testCaseId ?? ''),
    parentSpanId: evaluated,
    name: spanName(outcome.scorer),
    startTimeUnixNano: time.startUnixNano,
    endTimeUnixNano: time.endUnixNano,
    attributes,
    link: { traceId: trace.traceId, spanId: evaluated },
    turnLinks: facts.turnLinks,
    event: { name: EVALUATION_EVENT, timeUnixNano: time.endUnixNano, attributes: evaluation },
    statusCode: result.status === 'failed' ? 2 : 0,
    statusMessage: result.status === 'failed' ? explanation : '',
  };
}

/** 16 hex characters derived from (trace id, scorer, test case id); never all zeros. */
export function evaluationSpanId(traceId: string, scorer: string, testCaseId: string): string {
  // `hash` rather than `createHash`: no Hash object for a one-shot digest.
  const hex = hash('sha256', `${traceId}\u0000${scorer}\u0000${testCaseId}`, 'hex').slice(0, 16);
  return hex === '0000000000000000' ? '0000000000000001' : hex;
}

/**
 * `evaluation <scorer>`, one string a scorer: the scorers a suite and its rules name, a few, each
 * named in every trace's spans (a new string a span was 32–48 heap bytes). At most
 * {@link MAX_SPAN_NAMES} are kept; past them a name is built each time.
 */
function spanName(scorer: string): string {
  let name = spanNames.get(scorer);
  if (name === undefined) {
    name = `evaluation ${scorer}`;
    if (spanNames.size < MAX_SPAN_NAMES) spanNames.set(scorer, name);
  }
  return name;
}

const MAX_SPAN_NAMES = 256;

/** How many agents the span being made leaves out of its failing agents (one span at a time). */
const BLAMED_REST: FailingAgentsRest = { more: 0 };
/** The notes of the span being made (one at a time: it is made synchronously), copied when any. */
const SPAN_CUT: string[] = [];
const spanNames = new Map<string, string>();

function stringList(value: unknown): string[] | undefined {
  return Array.isArray(value) && value.every(v => typeof v === 'string') ? value : undefined;
}
