import type { SpanDigest } from '../ingest/span-digest.js';
import { absorb } from './absorb-call.js';
import { callKey } from './call-key.js';
import { canonicalToolName } from './canonical-tool-name.js';
import { EXTRACTORS } from './extractors/index.js';
import { FewKeyMap, SCAN_LIMIT } from './few-key-map.js';
import { appendUnmatchedRequests } from './pair-requests.js';
import { RequestedCall } from './requested-call.js';
import { SpanIndex } from './span-index.js';
import { toToolCall } from './to-tool-call.js';
import type { ToolCallExtractor } from './extractors/extractor.js';
import { FedBackResults } from './fed-back-results.js';
import type { ExtractedCall, ToolCall } from './tool-call.js';
import { failureInResult } from './tool-failure.js';
import { byStart, isSorted } from './call-order.js';

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
 * the result it recorded ({@link failureInResult}), the result fed back to the model
 * ({@link FedBackResults}: by id, by position where calls share one), or a refusal
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
  // The requests as read, each made a ToolCall only if nothing ran it (see RequestedCall).
  const requested: RequestedCall[] = [];
  // What the requesters read, each appending to this one list of the trace's (see `requested`).
  const extracted: ExtractedCall[] = [];
  let fedBack: FedBackResults | undefined;

  const { executors, requesters } = split(extractors);
  for (let s = 0; s < spans.length; s++) {
    const span = spans[s]!;
    let claimed = false;
    // Index loops: a for-of here left an iterator per loop on the profile.
    for (let e = 0; e < executors.length; e++) {
      const extractor = executors[e]!;
      const call = extractor.executed!(span);
      if (call !== undefined) {
        // A span sent twice under one id (a retry, or anyone who knows the id) is one call: its
        // first copy counts (`isCounted`, as offered tools and agent spans read it). Asked of
        // tool spans only, not of every span.
        if (call !== null && byId.isCounted(span))
          executed.push(
            toToolCall(call, span, 'executed', extractor.id, aliases, span.startTimeUnixNano),
          );
        claimed = true;
        break;
      }
    }
    // A tool span records its own call, never a model's requests: skip the message readers.
    if (claimed) continue;
    for (let e = 0; e < requesters.length; e++) {
      const extractor = requesters[e]!;
      const first = extracted.length;
      const results = extractor.requested!(span, extracted);
      if (!results) continue;
      // A requesting span sent twice: its first copy's requests only (asked of such spans only).
      if ((extracted.length > first || results.length) && !byId.isCounted(span)) {
        extracted.length = first;
        continue;
      }
      for (let c = first; c < extracted.length; c++) {
        const call = extracted[c]!;
        requested.push(
          new RequestedCall(call, span, extractor.id, canonicalToolName(call.rawName, aliases)),
        );
      }
      if (results.length) (fedBack ??= new FedBackResults()).add(span, results);
    }
  }

  // The merged list is this call's own (the executed calls, or a copy): the requests nothing
  // ran are appended to it, not copied with it into a third list.
  const kept = mergeExecuted(executed, byId);
  if (requested.length) appendUnmatchedRequests(requested, kept, byId, aliases);
  fedBack?.apply(kept);
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
  let refusals: ReadonlyMap<string, string> | undefined;
  for (const call of calls) {
    if (call.outcome !== 'refused' && call.result !== undefined) {
      const failure = failureInResult(call.result, call.source === 'executed');
      if (failure && (failure.refused || call.outcome === 'ok')) {
        call.outcome = failure.refused ? 'refused' : 'error';
        call.error = failure.error;
      }
    }
    if (call.outcome === 'ok' && call.source === 'requested' && call.result === undefined) {
      refusals ??= refusalsOnSpans(spans, split(extractors).refusers);
      const error = refusals.get(call.name);
      if (error !== undefined) {
        call.outcome = 'refused';
        call.error = error;
      }
    }
    call.status = call.outcome === 'ok' ? 'ok' : 'error';
  }
}

/**
 * The refusals spans record of calls made elsewhere (each extractor's `refusal`), by tool name;
 * a trace that records none (most) shares one empty map.
 */
function refusalsOnSpans(
  spans: readonly SpanDigest[],
  readers: readonly ToolCallExtractor[],
): ReadonlyMap<string, string> {
  let out: Map<string, string> | undefined;
  // Index loops: a for-of over the readers left an iterator result per span.
  for (let s = 0; s < spans.length; s++)
    for (let r = 0; r < readers.length; r++) {
      const found = readers[r]!.refusal!(spans[s]!);
      if (found && !out?.has(found.toolName)) (out ??= new Map()).set(found.toolName, found.error);
    }
  return out ?? NO_REFUSALS;
}

const NO_REFUSALS: ReadonlyMap<string, string> = new Map();

interface Parts {
  executors: ToolCallExtractor[];
  requesters: ToolCallExtractor[];
  refusers: ToolCallExtractor[];
}

const splitCache = new WeakMap<readonly ToolCallExtractor[], Parts>();

// The registry split once into the extractors that read tool spans, those that read messages
// and those that read refusals.
function split(extractors: readonly ToolCallExtractor[]): Parts {
  let parts = splitCache.get(extractors);
  if (!parts) {
    parts = {
      executors: extractors.filter(e => e.executed !== undefined),
      requesters: extractors.filter(e => e.requested !== undefined),
      refusers: extractors.filter(e => e.refusal !== undefined),
    };
    splitCache.set(extractors, parts);
  }
  return parts;
}

/**
 * The executed calls in start order, each reported once: a call with the call id and canonical
 * name of one before it (`callKey`: an id reused for another tool is another call), or nested in
 * a tool span of the same name (`nestedTwin`), is merged into that one. The list is `calls`
 * itself (or its sorted copy) unless a call is merged away: a list of its own is made only then.
 */
function mergeExecuted(calls: ToolCall[], byId: SpanIndex): ToolCall[] {
  const ordered = isSorted(calls) ? calls : [...calls].sort(byStart);
  if (ordered.length <= 1) return ordered;
  // Most traces merge nothing: a scan of the calls says so before the two maps are made (about
  // 600 bytes a trace of ten calls).
  if (ordered.length <= SCAN_LIMIT && firstTwin(ordered, byId) === -1) return ordered;
  const bySpan = new FewKeyMap<string, ToolCall>(ordered.length);
  const byKey = new FewKeyMap<string, ToolCall>(ordered.length);
  // The calls kept, once one is merged away; until then, the first `i` of `ordered`.
  let out: ToolCall[] | undefined;
  for (let i = 0; i < ordered.length; i++) {
    const call = ordered[i]!;
    const key = call.callId === undefined ? undefined : callKey(call.callId, call.canonicalName);
    const twin = (key !== undefined ? byKey.get(key) : undefined) ?? nestedTwin(call, byId, bySpan);
    if (twin) {
      absorb(twin, call);
      bySpan.set(call.spanId, twin);
      out ??= ordered.slice(0, i);
      continue;
    }
    out?.push(call);
    bySpan.set(call.spanId, call);
    if (key !== undefined) byKey.set(key, call);
  }
  return out ?? ordered;
}

/**
 * The index of the first call that {@link mergeExecuted} would merge into one before it (same
 * call id and canonical name, or `nestedTwin`), -1 when none: what its maps would find while
 * nothing is merged, by a scan of the calls before each (`calls` has at most `SCAN_LIMIT`, one
 * tool span each, so a scan costs what a `FewKeyMap` lookup does).
 */
function firstTwin(calls: readonly ToolCall[], byId: SpanIndex): number {
  for (let i = 1; i < calls.length; i++) {
    const call = calls[i]!;
    if (call.callId !== undefined)
      for (let j = 0; j < i; j++)
        if (calls[j]!.callId === call.callId && calls[j]!.canonicalName === call.canonicalName)
          return i;
    let parentId = byId.get(call.spanId)?.parentSpanId ?? '';
    for (let hops = 0; parentId !== '' && hops < 64; hops++) {
      const ancestor = spanCall(calls, i, parentId);
      if (ancestor) {
        if (isNestedTwin(ancestor, call)) return i;
        break;
      }
      parentId = byId.get(parentId)?.parentSpanId ?? '';
    }
  }
  return -1;
}

// The last of `calls[0, end)` made from span `spanId` (a map set in order keeps the last).
function spanCall(calls: readonly ToolCall[], end: number, spanId: string): ToolCall | undefined {
  for (let j = end - 1; j >= 0; j--) if (calls[j]!.spanId === spanId) return calls[j];
  return undefined;
}

/**
 * The nearest ancestor tool call (`bySpan`: the calls so far by their span) when it is the same
 * call recorded twice ({@link isNestedTwin}); the walk stops at the first ancestor call either way.
 */
function nestedTwin(
  call: ToolCall,
  byId: SpanIndex,
  bySpan: FewKeyMap<string, ToolCall>,
): ToolCall | undefined {
  let parentId = byId.get(call.spanId)?.parentSpanId ?? '';
  for (let hops = 0; parentId !== '' && hops < 64; hops++) {
    const ancestor = bySpan.get(parentId);
    if (ancestor) return isNestedTwin(ancestor, call) ? ancestor : undefined;
    parentId = byId.get(parentId)?.parentSpanId ?? '';
  }
  return undefined;
}

/**
 * Whether `call`, made from a span under the span of `ancestorCall` (the nearest such call), is
 * the same call recorded twice (two instrumentations, MCP client and server): the same canonical
 * name, and call ids that do not disagree (either may be missing).
 */
function isNestedTwin(ancestorCall: ToolCall, call: ToolCall): boolean {
  return (
    ancestorCall.canonicalName === call.canonicalName &&
    (ancestorCall.callId === undefined ||
      call.callId === undefined ||
      ancestorCall.callId === call.callId)
  );
}
