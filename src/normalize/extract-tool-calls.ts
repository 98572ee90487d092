import type { SpanDigest } from '../ingest/span-digest.js';
import { toolNames } from './canonical-tool-name.js';
import { EXTRACTORS } from './extractors/index.js';
import { SpanIndex } from './span-index.js';
import type { ToolCallExtractor, ToolResultSeen } from './extractors/extractor.js';
import type { ExtractedCall, ToolCall } from './tool-call.js';
import { failureInResult } from './tool-failure.js';
import { byStart, isSorted, requestsSorted, sortRequests } from './call-order.js';

/** Options for {@link extractToolCalls}. */
export interface ExtractToolCallsOptions {
  /** Alias map from `buildAliasMap`, applied to canonical names. */
  aliases?: ReadonlyMap<string, string>;
  /** The extractor registry; defaults to every built-in convention. */
  extractors?: readonly ToolCallExtractor[];
}

/**
 * Every tool call in one trace's spans, in start-time order, each reported once.
 *
 * Executed tool spans come first; a call the model requested on an LLM span is added only when
 * no executed span exists for it (matched by call id, else one-to-one by canonical name).
 * Duplicates are merged: the same call id twice, or a tool span nested inside a tool span of the
 * same name (two instrumentations, MCP client and server), keeping whichever recorded more.
 * Calls that failed still count, with their outcome (`error`, or `refused` when the framework's own
 * shape for a call it did not run says so, never an error text alone): read from the tool span,
 * the result it recorded ({@link failureInResult}), the result fed back to the model, or a refusal
 * the framework recorded on an enclosing span.
 */
export function extractToolCalls(
  spans: readonly SpanDigest[],
  options: ExtractToolCallsOptions = {},
): ToolCall[] {
  return extractIndexedToolCalls(spans, new SpanIndex(spans), options);
}

/** {@link extractToolCalls} with the spans' index the caller built once (`indexTrace`). */
export function extractIndexedToolCalls(
  spans: readonly SpanDigest[],
  byId: SpanIndex,
  options: ExtractToolCallsOptions = {},
): ToolCall[] {
  const extractors = options.extractors ?? EXTRACTORS;
  const aliases = options.aliases;
  const executed: ToolCall[] = [];
  const requested: Array<{ call: ToolCall; span: SpanDigest }> = [];
  let results: Map<string, ToolResultSeen> | undefined;

  const { executors, requesters } = split(extractors);
  for (const span of spans) {
    let claimed = false;
    for (const extractor of executors) {
      const calls = extractor.executed!(span);
      if (calls !== undefined) {
        for (const c of calls) {
          executed.push(
            toToolCall(c, span, 'executed', extractor.id, aliases, span.startTimeUnixNano),
          );
        }
        claimed = true;
        break;
      }
    }
    // A tool span records its own call, never a model's requests: skip the message readers.
    if (claimed) continue;
    for (const extractor of requesters) {
      const found = extractor.requested!(span);
      if (!found) continue;
      for (const c of found.calls) {
        requested.push({
          call: toToolCall(c, span, 'requested', extractor.id, aliases, span.endTimeUnixNano),
          span,
        });
      }
      for (const r of found.results) {
        results ??= new Map();
        if (!results.has(r.callId)) results.set(r.callId, r);
      }
    }
  }

  const merged = mergeExecuted(executed, byId);
  // The merged list is this call's own (the executed calls, or a copy): the requests nothing
  // ran are appended to it, not copied with it into a third list.
  const kept = merged;
  if (requested.length)
    for (const call of unmatchedRequests(requested, merged, byId)) kept.push(call);
  if (results)
    for (const call of kept) {
      const seen = call.callId === undefined ? undefined : results.get(call.callId);
      if (!seen) continue;
      if (call.result === undefined) call.result = seen.result;
      if (seen.isError && call.outcome === 'ok') {
        call.outcome = seen.refused && call.source === 'requested' ? 'refused' : 'error';
        call.error ??= seen.error ?? 'the tool result was marked as an error';
      }
    }
  settleOutcomes(kept, spans, extractors);
  return isSorted(kept) ? kept : kept.sort(byStart);
}

/**
 * Each call's final outcome: a failure its result records, or its producer's refusal
 * ({@link failureInResult}: an error result never overrides a refusal, a refusal overrides a
 * span's error status), or (for a requested call nothing answered) a refusal the framework
 * recorded on an enclosing span; `status` follows the outcome.
 */
function settleOutcomes(
  calls: ToolCall[],
  spans: readonly SpanDigest[],
  extractors: readonly ToolCallExtractor[],
): void {
  let refusals: Map<string, string> | undefined;
  for (const call of calls) {
    if (call.outcome !== 'refused' && call.result !== undefined) {
      const failure = failureInResult(call.result, call.source === 'executed');
      if (failure && (failure.refused || call.outcome === 'ok')) {
        call.outcome = failure.refused ? 'refused' : 'error';
        call.error = failure.error;
      }
    }
    if (call.outcome === 'ok' && call.source === 'requested' && call.result === undefined) {
      refusals ??= refusalsOnSpans(spans, extractors);
      const error = refusals.get(call.name);
      if (error !== undefined) {
        call.outcome = 'refused';
        call.error = error;
      }
    }
    call.status = call.outcome === 'ok' ? 'ok' : 'error';
  }
}

/** The refusals spans record of calls made elsewhere (each extractor's `refusal`), by tool name. */
function refusalsOnSpans(
  spans: readonly SpanDigest[],
  extractors: readonly ToolCallExtractor[],
): Map<string, string> {
  const out = new Map<string, string>();
  const readers = extractors.filter(e => e.refusal !== undefined);
  for (const span of spans)
    for (const reader of readers) {
      const found = reader.refusal!(span);
      if (found && !out.has(found.toolName)) out.set(found.toolName, found.error);
    }
  return out;
}

const splitCache = new WeakMap<
  readonly ToolCallExtractor[],
  { executors: ToolCallExtractor[]; requesters: ToolCallExtractor[] }
>();

// The registry split once into the extractors that read tool spans and those that read messages.
function split(extractors: readonly ToolCallExtractor[]): {
  executors: ToolCallExtractor[];
  requesters: ToolCallExtractor[];
} {
  let parts = splitCache.get(extractors);
  if (!parts) {
    parts = {
      executors: extractors.filter(e => e.executed !== undefined),
      requesters: extractors.filter(e => e.requested !== undefined),
    };
    splitCache.set(extractors, parts);
  }
  return parts;
}

function toToolCall(
  c: ExtractedCall,
  span: SpanDigest,
  source: ToolCall['source'],
  convention: string,
  aliases: ReadonlyMap<string, string> | undefined,
  start: bigint,
): ToolCall {
  const { stripped, folded } = toolNames(c.rawName);
  const status = c.refused ? 'error' : (c.status ?? 'ok');
  return {
    name: stripped,
    rawName: c.rawName,
    canonicalName: aliases?.get(folded) ?? folded,
    callId: c.callId,
    arguments: c.arguments,
    result: c.result,
    status,
    outcome: c.refused ? 'refused' : status,
    error: c.error,
    spanId: span.spanId,
    requestedBy: source === 'requested' ? span.spanId : undefined,
    startTimeUnixNano: start,
    durationMs:
      source === 'executed' && span.endTimeUnixNano >= span.startTimeUnixNano
        ? Number(span.endTimeUnixNano - span.startTimeUnixNano) / 1e6
        : undefined,
    source,
    convention,
    signal: c.signal,
  };
}

function mergeExecuted(calls: ToolCall[], byId: SpanIndex): ToolCall[] {
  const ordered = isSorted(calls) ? calls : [...calls].sort(byStart);
  if (ordered.length === 1) return ordered;
  const bySpan = new Map<string, ToolCall>();
  const byCallId = new Map<string, ToolCall>();
  const out: ToolCall[] = [];
  for (const call of ordered) {
    const twin =
      (call.callId !== undefined ? byCallId.get(call.callId) : undefined) ??
      nestedTwin(call, byId, bySpan);
    if (twin) {
      absorb(twin, call);
      bySpan.set(call.spanId, twin);
      continue;
    }
    out.push(call);
    bySpan.set(call.spanId, call);
    if (call.callId !== undefined) byCallId.set(call.callId, call);
  }
  return out;
}

// The nearest ancestor tool call of the same canonical name, unless their call ids disagree.
function nestedTwin(
  call: ToolCall,
  byId: SpanIndex,
  bySpan: Map<string, ToolCall>,
): ToolCall | undefined {
  let parentId = byId.get(call.spanId)?.parentSpanId ?? '';
  for (let hops = 0; parentId !== '' && hops < 64; hops++) {
    const ancestor = bySpan.get(parentId);
    if (ancestor) {
      const sameName = ancestor.canonicalName === call.canonicalName;
      const idsAgree =
        ancestor.callId === undefined ||
        call.callId === undefined ||
        ancestor.callId === call.callId;
      return sameName && idsAgree ? ancestor : undefined;
    }
    parentId = byId.get(parentId)?.parentSpanId ?? '';
  }
  return undefined;
}

function absorb(into: ToolCall, from: ToolCall): void {
  into.callId ??= from.callId;
  if (from.source === 'requested' && into.source === 'executed' && from.arguments !== undefined)
    into.requestedArguments ??= from.arguments;
  // A bare value (LangChain records a one-argument tool's input as `Paris`) or an empty one
  // (a wrapper that saw no arguments: `{"args":[],"kwargs":{}}`) gives way to the structured
  // arguments the model sent (`{"city":"Paris"}`).
  if (into.arguments === undefined || (!hasEntries(into.arguments) && hasEntries(from.arguments)))
    into.arguments = from.arguments;
  if (into.result === undefined) into.result = from.result;
  into.requestedBy ??= from.requestedBy;
  into.durationMs ??= from.durationMs;
  if (from.outcome !== 'ok' && into.outcome === 'ok') {
    into.status = 'error';
    into.outcome = from.outcome;
    into.error = from.error;
  }
}

/** An object or array with at least one entry: arguments worth keeping over the request's. */
function hasEntries(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  // An own enumerable key, as Object.keys would list, without making the list.
  for (const key in value) if (Object.hasOwn(value, key)) return true;
  return false;
}

function unmatchedRequests(
  requested: Array<{ call: ToolCall; span: SpanDigest }>,
  executed: ToolCall[],
  byId: SpanIndex,
): ToolCall[] {
  const executedIds = new Map<string, ToolCall>();
  for (const c of executed) if (c.callId !== undefined) executedIds.set(c.callId, c);
  const claimed = new Set<ToolCall>();
  const out: ToolCall[] = [];
  const keptIds = new Map<string, ToolCall>();
  const keptNoId: Array<{ span: SpanDigest; key: string }> = [];
  // Latest start of an executed call each requesting span was matched to: a request that never
  // ran is placed after its executed siblings, not before them.
  const ranUntil = new Map<string, bigint>();
  const unexecuted: Array<{ call: ToolCall; span: SpanDigest }> = [];
  // Usually in order already (model spans end in start order): copied and sorted only if not.
  const ordered = requestsSorted(requested) ? requested : sortRequests(requested);
  const exact = exactRuns(ordered, executed, executedIds);
  for (const { call, span } of ordered) {
    const sameId =
      call.callId === undefined
        ? undefined
        : (executedIds.get(call.callId) ?? keptIds.get(call.callId));
    // Executed spans without a call id (OpenInference, LangSmith, Logfire, Traceloop tools) pair
    // one-to-one by name with an unclaimed run that started after the model call began: first the
    // one whose arguments are the request's, else the first whose arguments no later request
    // shares (a request the framework refused before running it, then the corrected one that ran,
    // must not take the corrected run).
    // (The closures are made only for a request no call id pairs: a closure a request was most of
    // what pairing allocated.)
    const pending = exact.pending.get(call);
    if (pending) for (const e of pending) exact.wanted.set(e, exact.wanted.get(e)! - 1);
    const run = sameId ?? idleRun(call, span, pending, executed, claimed, exact.wanted);
    if (run) {
      claimed.add(run);
      absorb(run, call);
      // The same call replayed in a later model call's input must find this run by its id.
      if (run.callId !== undefined && run.source === 'executed') executedIds.set(run.callId, run);
      if (run.source === 'executed') {
        const prev = ranUntil.get(span.spanId) ?? 0n;
        if (run.startTimeUnixNano > prev) ranUntil.set(span.spanId, run.startTimeUnixNano);
      }
      continue;
    }
    if (call.callId === undefined) {
      // The same request reported by a model span and its wrapper (ai.generateText/doGenerate).
      const key = `${call.canonicalName}\u0000${stableJson(call.arguments)}`;
      if (
        keptNoId.some(
          k => k.key === key && (isAncestor(k.span, span, byId) || isAncestor(span, k.span, byId)),
        )
      )
        continue;
      keptNoId.push({ span, key });
    } else keptIds.set(call.callId, call);
    unexecuted.push({ call, span });
    out.push(call);
  }
  for (const { call, span } of unexecuted) {
    const after = ranUntil.get(span.spanId);
    if (after !== undefined && after > call.startTimeUnixNano) call.startTimeUnixNano = after;
  }
  return out;
}

/**
 * The unclaimed id-less run of the request's tool that started after its model call began: first
 * among `pending` (the runs with the request's arguments), else the first of `executed` no later
 * request still wants.
 */
function idleRun(
  call: ToolCall,
  span: SpanDigest,
  pending: readonly ToolCall[] | undefined,
  executed: readonly ToolCall[],
  claimed: ReadonlySet<ToolCall>,
  wanted: ReadonlyMap<ToolCall, number>,
): ToolCall | undefined {
  const idle = (e: ToolCall) =>
    !claimed.has(e) &&
    e.callId === undefined &&
    e.canonicalName === call.canonicalName &&
    e.startTimeUnixNano >= span.startTimeUnixNano;
  return pending?.find(idle) ?? executed.find(e => idle(e) && !(wanted.get(e)! > 0));
}

/**
 * For each request that no call id pairs, the id-less runs of its tool with the same arguments
 * (canonical JSON), and how many requests still want each such run.
 */
function exactRuns(
  requested: ReadonlyArray<{ call: ToolCall }>,
  executed: readonly ToolCall[],
  executedIds: ReadonlyMap<string, ToolCall>,
): { pending: Map<ToolCall, ToolCall[]>; wanted: Map<ToolCall, number> } {
  const idless = executed.filter(e => e.callId === undefined && e.arguments !== undefined);
  // Nothing is added to the maps of a trace without id-less runs: every such trace shares these.
  if (idless.length === 0) return NO_EXACT_RUNS;
  const pending = new Map<ToolCall, ToolCall[]>();
  const wanted = new Map<ToolCall, number>();
  const byKey = new Map<string, ToolCall[]>();
  for (const e of idless) {
    const key = `${e.canonicalName}\u0000${stableJson(e.arguments)}`;
    const list = byKey.get(key);
    if (list) list.push(e);
    else byKey.set(key, [e]);
    wanted.set(e, 0);
  }
  for (const { call } of requested) {
    if (call.callId !== undefined && executedIds.has(call.callId)) continue;
    const runs = byKey.get(`${call.canonicalName}\u0000${stableJson(call.arguments)}`);
    if (!runs) continue;
    pending.set(call, runs);
    for (const e of runs) wanted.set(e, wanted.get(e)! + 1);
  }
  return { pending, wanted };
}

const NO_EXACT_RUNS = {
  pending: new Map<ToolCall, ToolCall[]>(),
  wanted: new Map<ToolCall, number>(),
};

function isAncestor(ancestor: SpanDigest, span: SpanDigest, byId: SpanIndex): boolean {
  let parentId = span.parentSpanId;
  for (let hops = 0; parentId !== '' && hops < 64; hops++) {
    if (parentId === ancestor.spanId) return true;
    parentId = byId.get(parentId)?.parentSpanId ?? '';
  }
  return false;
}

/**
 * JSON with object keys sorted, so equal values give equal strings. A value nested too deep for
 * the stack (arguments are untrusted: JSON.parse reads any depth) gives a text of its own, equal to
 * no other: such calls are never taken for repeats or duplicates of each other.
 */
export function stableJson(value: unknown): string {
  try {
    return (
      JSON.stringify(value, (_key, v: unknown) => {
        if (typeof v === 'bigint') return v.toString();
        if (v && typeof v === 'object' && !Array.isArray(v)) {
          return Object.fromEntries(
            Object.entries(v as Record<string, unknown>).sort(([a], [b]) =>
              a < b ? -1 : a > b ? 1 : 0,
            ),
          );
        }
        return v;
      }) ?? 'undefined'
    );
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    return `\u0000too deep ${++tooDeep}`;
  }
}

let tooDeep = 0;
