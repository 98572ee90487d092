import { LOG_RECORD_ATTRIBUTE } from '../ingest/log-event-carrier.js';
import type { SpanDigest, SpanEventDigest } from '../ingest/span-digest.js';
import { extractAvailableTools, type OfferedTool } from './extract-available-tools.js';
import { EXTRACTORS } from './extractors/index.js';
import { toolNames } from './canonical-tool-name.js';
import { stableJson } from './stable-json.js';
import type { ToolCallExtractor } from './extractors/extractor.js';
import { isModelSpan, LOGS_WRITERS } from './model-span.js';
import { assessToolCalls } from './assess-tool-calls.js';
import {
  DEFAULT_TEST_CASE_ID_ATTRIBUTES,
  readTestCaseId,
  testCaseIdNames,
} from './find-test-case-id.js';
import type { Handoff } from './attribute-agents.js';
import { findIdAttributes } from './find-id-attribute.js';
import { indexTrace } from './indexed-trace.js';
import { INPUT_BOUNDS, inputBoundHitCount } from './input-bounds.js';
import { normalizeIndexedTrace, type NormalizedTrace } from './normalize-trace.js';
import { sessionIdNames, sessionIdOf } from './find-session-id.js';
import { shownText } from './shown-text.js';
import type { SchemaSource } from './schema-source.js';
import type { ExtractedCall, ToolCall } from './tool-call.js';

export { isModelSpan };

/** What may be wrong with how a trace records its tool calls. */
export type DiagnosticCode =
  | 'no_tool_calls_recorded'
  | 'test_case_id_not_on_root'
  | 'unparseable_arguments'
  | 'requested_not_executed'
  | 'several_conventions_on_one_span'
  /** Added by the queue, not found here: spans past `assembly.maxSpansPerTrace` were refused. */
  | 'trace_truncated'
  /**
   * Values past normalization's bounds (`INPUT_BOUNDS`: JSON text too long or nested too deep,
   * attribute keys too long to be indexed) were left unread (`inputBoundedDiagnostic`).
   */
  | 'input_bounded'
  /**
   * Added by the memory driver's sessions: a turn of a session not scored with it, the session
   * let go so long ago that no record of it is left (`spanscore_session_turns_dropped_total`).
   */
  | 'session_turn_dropped';

/** One finding about a trace, for people: why a score may be wrong for a reason outside the agent. */
export interface Diagnostic {
  code: DiagnosticCode;
  message: string;
}

/**
 * A call as `inspect` shows it: its outcome (`ok`, `error`, `refused`) and error (on the call),
 * `offered` (true or false when the trace shows which tools the model call was offered, `null`
 * when it records none) and `argumentProblems` (`path: message` each, `[]` when its arguments match
 * the schema offered, `null` when no schema applies or they could not be checked, with why in
 * `argumentsUnchecked`).
 */
export type InspectedCall = ToolCall & {
  offered: boolean | null;
  argumentProblems: string[] | null;
  argumentsUnchecked?: string;
  /** Where the schema applied came from (`trace` for the trace's own); absent when none did. */
  schemaSource?: SchemaSource;
};

/** What spanscore read from one trace (`spanscore inspect`). */
export interface TraceInspection {
  traceId: string;
  /** Spans, log records joined to them not counted (see `logRecords`). */
  spans: number;
  /** GenAI log records joined to the trace's spans as events (the OTLP logs signal). */
  logRecords: number;
  root: { spanId: string; name: string } | null;
  testCaseId: string | null;
  /** The attribute the test case id came from, and whether the root span held it. */
  testCaseIdAttribute: string | null;
  /**
   * When the id was a key inside a JSON-object attribute (`metadata = '{"testCaseId":…}'` for
   * `metadata.testCaseId`): that attribute and key; null when an attribute had the whole name.
   */
  testCaseIdInJson: { attribute: string; key: string } | null;
  testCaseIdOnRoot: boolean;
  /** The session the trace is a turn of (see `findSessionId`), and the attribute it came from. */
  sessionId: string | null;
  sessionIdAttribute: string | null;
  /** Spans that called a model (LLM, chat, generation spans of any convention). */
  modelCalls: number;
  /** Per convention (extractor) that matched: the spans it read as tool spans, and as model requests. */
  conventions: Array<{ id: string; executedSpans: number; requestedSpans: number }>;
  /** Each call, with what tool health found (see {@link InspectedCall}). */
  toolCalls: InspectedCall[];
  /** The agents' names in the order they took control (the route); empty without agent spans. */
  agents: string[];
  /** The same turns, each with the handoff tool that gave it control (`null` for none). */
  route: Array<{ agent: string; handoff: string | null }>;
  /** Control passed between agents, kept out of `toolCalls`. */
  handoffs: Handoff[];
  availableTools: OfferedTool[];
  diagnostics: Diagnostic[];
}

/**
 * The scope of a model span that writes its messages as log records, when no log record of the
 * trace was joined to it: the trace's tool calls are in the logs spanscore did not receive.
 */
function logsAwaited(
  models: readonly SpanDigest[],
  spans: readonly SpanDigest[],
): string | undefined {
  const writer = models.find(s => LOGS_WRITERS.has(s.scopeName))?.scopeName;
  if (!writer) return undefined;
  return spans.some(s => s.events.some(isLogRecordEvent)) ? undefined : writer;
}

function isLogRecordEvent(event: SpanEventDigest): boolean {
  return event.attributes[LOG_RECORD_ATTRIBUTE] === true;
}

/** A tool result fed back to a model, in any message attribute (`role: tool`, `tool_result`). */
function recordsToolResults(spans: readonly SpanDigest[]): boolean {
  for (const span of spans)
    for (const value of Object.values(span.attributes))
      if (
        typeof value === 'string' &&
        value.length > 10 &&
        /"role"\s*:\s*"tool"|"type"\s*:\s*"tool_result"|"tool_call_id"/.test(value)
      )
        return true;
  return false;
}

/**
 * The diagnostics of a normalized trace, for `inspect`; the scoring loop (`scoreTrace`) asks for
 * them only when the trace has no tool calls, to say why it is not scored or why its results may
 * be wrong. Without tool calls they scan the spans' attributes.
 */
export function diagnoseTrace(
  trace: Pick<NormalizedTrace, 'toolSequence' | 'root' | 'testCaseId'>,
  spans: readonly SpanDigest[],
  testCaseIdAttributes: readonly string[] = DEFAULT_TEST_CASE_ID_ATTRIBUTES,
): Diagnostic[] {
  const out: Diagnostic[] = [];
  const calls = trace.toolSequence;
  if (calls.length === 0) {
    const models = spans.filter(isModelSpan);
    const writer = logsAwaited(models, spans);
    if (writer)
      out.push({
        code: 'no_tool_calls_recorded',
        message: `the trace records ${models.length} model call(s) from ${writer}, which writes the messages and tool calls as OTLP log records, and no log record of this trace arrived: send logs to spanscore too (OTEL_EXPORTER_OTLP_ENDPOINT covers both signals; see "Sending logs" in docs/frameworks.md)`,
      });
    else if (
      models.length > 0 &&
      extractAvailableTools(spans).length === 0 &&
      !recordsToolResults(spans)
    )
      out.push({
        code: 'no_tool_calls_recorded',
        message: `the trace records ${models.length} model call(s) but no tool calls, tool definitions or tool results: the instrumentation may not record them (see docs/frameworks.md)`,
      });
  }
  if (trace.testCaseId !== undefined && trace.root) {
    const onRoot = testCaseIdAttributes.some(
      k => readTestCaseId(trace.root!.attributes, k)?.id === trace.testCaseId,
    );
    if (!onRoot)
      out.push({
        code: 'test_case_id_not_on_root',
        // Both as the trace chose them: shown cut, as on the run record (`shownText`).
        message: `the test case id "${shownText(trace.testCaseId)}" is on a child span, not on the root span "${shownText(trace.root.name)}": set it on the run's root span so every span of the run is covered`,
      });
  }
  const unparseable = calls.filter(
    c => typeof c.arguments === 'string' && /^\s*[[{]/.test(c.arguments),
  );
  if (unparseable.length)
    out.push({
      code: 'unparseable_arguments',
      message: `arguments of ${unparseable.map(c => c.name).join(', ')} look like JSON but do not parse: they are compared as text`,
    });
  const executed = calls.filter(c => c.source === 'executed');
  // A call the framework refused was never to run: it is not missing a tool span.
  const orphans = calls.filter(c => c.source === 'requested' && c.outcome !== 'refused');
  if (executed.length && orphans.length)
    out.push({
      code: 'requested_not_executed',
      message: `the model requested ${orphans.map(c => c.name).join(', ')}, which no tool span executed, while other calls have tool spans: a tool may be untraced`,
    });
  return out;
}

/**
 * Everything spanscore reads from one trace: the test case id and where it came from, the
 * conventions that matched, the tool calls, the tools offered, and the diagnostics (with
 * `several_conventions_on_one_span`, which only this full pass over the extractors can see).
 */
export function inspectTrace(
  traceId: string,
  traceSpans: readonly SpanDigest[],
  options: {
    testCaseIdAttributes?: readonly string[];
    /** Attributes a session id is read from; default: `DEFAULT_SESSION_ID_ATTRIBUTES`. */
    sessionIdAttributes?: readonly string[];
    extractors?: readonly ToolCallExtractor[];
  } = {},
): TraceInspection {
  const attributes = options.testCaseIdAttributes ?? DEFAULT_TEST_CASE_ID_ATTRIBUTES;
  const extractors = options.extractors ?? EXTRACTORS;
  const boundHits = inputBoundHitCount();
  const indexed = indexTrace(traceSpans);
  const { spans, root } = indexed;
  const [found, sessionFound] = findIdAttributes(spans, root, [
    testCaseIdNames(attributes),
    sessionIdNames(options.sessionIdAttributes),
  ]);
  const session = sessionIdOf(sessionFound);
  const trace = normalizeIndexedTrace(traceId, indexed, { testCaseId: found?.id });
  const counts = new Map<string, { executedSpans: number; requestedSpans: number }>();
  const count = (id: string) => {
    let c = counts.get(id);
    if (!c) counts.set(id, (c = { executedSpans: 0, requestedSpans: 0 }));
    return c;
  };
  const several: string[] = [];
  // The requests read, only counted: the requesters append to it.
  const requests: ExtractedCall[] = [];
  for (const span of spans) {
    const claimed: Array<{ id: string; calls: ExtractedCall[] }> = [];
    for (const e of extractors) {
      const call = e.executed?.(span);
      if (call !== undefined) claimed.push({ id: e.id, calls: call === null ? [] : [call] });
    }
    for (const { id } of claimed) count(id).executedSpans++;
    const conflict = claimed.length > 1 ? disagreement(claimed) : undefined;
    if (conflict) several.push(`${span.spanId} (${conflict})`);
    if (claimed.length) continue;
    for (const e of extractors) {
      const first = requests.length;
      const results = e.requested?.(span, requests);
      if (results && (requests.length > first || results.length)) count(e.id).requestedSpans++;
    }
  }
  const diagnostics = diagnoseTrace(trace, spans, attributes);
  if (several.length)
    diagnostics.push({
      code: 'several_conventions_on_one_span',
      message: `${several.length} span(s) read differently by the conventions that claim them (the first in the registry wins): ${several.slice(0, 3).join('; ')}`,
    });
  const toolCalls = assessToolCalls(trace).calls.map(a => ({
    ...a.call,
    offered: a.offered,
    argumentProblems: a.argumentProblems,
    ...(a.unchecked !== undefined && { argumentsUnchecked: a.unchecked }),
    ...(a.schemaSource && { schemaSource: a.schemaSource }),
  }));
  const availableTools = extractAvailableTools(spans);
  const bounded = inputBoundHitCount() - boundHits;
  if (bounded > 0) diagnostics.push(inputBoundedDiagnostic(bounded));
  return {
    traceId,
    spans: spans.length,
    logRecords: spans.reduce((n, s) => n + s.events.filter(isLogRecordEvent).length, 0),
    root: root ? { spanId: root.spanId, name: root.name } : null,
    testCaseId: trace.testCaseId ?? null,
    testCaseIdAttribute: found?.attribute ?? null,
    testCaseIdInJson: found?.inJson ?? null,
    testCaseIdOnRoot:
      found !== undefined &&
      root !== undefined &&
      readTestCaseId(root.attributes, found.attribute)?.id === found.id,
    sessionId: session?.id ?? null,
    sessionIdAttribute: session?.attribute ?? null,
    modelCalls: spans.filter(isModelSpan).length,
    conventions: [...counts].map(([id, c]) => ({ id, ...c })),
    toolCalls,
    agents: trace.agents.map(t => t.agent),
    route: trace.agents.map(t => ({ agent: t.agent, handoff: t.handoff?.rawName ?? null })),
    handoffs: trace.handoffs,
    availableTools,
    diagnostics,
  };
}

/**
 * The diagnostic of a trace read in part: `count` values past `INPUT_BOUNDS` were left unread
 * while it was read (JSON text kept as text, unparsed; attribute keys too long to be read as
 * indexed attributes; a trace's pairing of requests with id-less runs stopped at its budget). A caller counts them with `inputBoundHitCount()` before and after its
 * synchronous steps (`scoreTrace`, {@link inspectTrace}), so another trace's work never counts.
 */
export function inputBoundedDiagnostic(count: number): Diagnostic {
  return {
    code: 'input_bounded',
    message: `${count} value(s) past normalization's bounds were left unread (JSON text longer than ${INPUT_BOUNDS.maxJsonChars} characters or nested deeper than ${INPUT_BOUNDS.maxJsonDepth} levels stays text; attribute keys longer than ${INPUT_BOUNDS.maxIndexedKeyChars} characters are not read as indexed attributes; past ${INPUT_BOUNDS.maxPairingSteps} candidates a trace, requested calls are not paired by name with runs that have no call id): what they hold is not scored`,
  };
}

/**
 * How the conventions that claim one span read it differently (tool name, call id or arguments),
 * or `undefined` when they agree. Several conventions on one span are common and harmless (the AI
 * SDK's GenAI attributes plus OpenInference's, written by its span processor): only a
 * disagreement can change what is scored. A field one convention leaves out is no disagreement.
 */
function disagreement(claimed: Array<{ id: string; calls: ExtractedCall[] }>): string | undefined {
  const readings = claimed.map(({ id, calls }) => {
    const c = calls[0];
    return {
      id,
      name: c ? toolNames(c.rawName).folded : undefined,
      callId: c?.callId,
      args: c?.arguments === undefined ? undefined : stableJson(c.arguments),
    };
  });
  const first = readings[0]!;
  const differ = (a: string | undefined, b: string | undefined) =>
    a !== undefined && b !== undefined && a !== b;
  const others = readings
    .slice(1)
    .filter(
      r =>
        differ(r.name, first.name) || differ(r.callId, first.callId) || differ(r.args, first.args),
    );
  if (!others.length) return undefined;
  return [first, ...others].map(r => `${r.id}: ${r.name ?? '(no call)'}`).join(' vs ');
}

/** A {@link TraceInspection} as JSON can carry it: call start times (bigint) as decimal strings. */
export function inspectionToJson(i: TraceInspection): Omit<
  TraceInspection,
  'toolCalls' | 'handoffs'
> & {
  handoffs: Array<Omit<Handoff, 'startTimeUnixNano'> & { startTimeUnixNano: string }>;
  toolCalls: Array<
    Omit<InspectedCall, 'startTimeUnixNano' | 'signal' | 'error' | 'durationMs'> & {
      startTimeUnixNano: string;
      /** The signal the call was read from: spans (and span events), or GenAI log records. */
      signal: 'spans' | 'logs';
      /** The error text of a failed or refused call; `null` for one that went well. */
      error: string | null;
      durationMs: number | null;
    }
  >;
} {
  return {
    ...i,
    toolCalls: i.toolCalls.map(c => ({
      ...c,
      startTimeUnixNano: c.startTimeUnixNano.toString(),
      signal: c.signal ?? 'spans',
      error: c.error ?? null,
      durationMs: c.durationMs ?? null,
    })),
    handoffs: i.handoffs.map(h => ({ ...h, startTimeUnixNano: h.startTimeUnixNano.toString() })),
  };
}
