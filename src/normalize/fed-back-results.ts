import type { SpanDigest } from '../ingest/span-digest.js';
import type { ToolResultSeen } from './extractors/extractor.js';
import { byStart } from './call-order.js';
import { FewKeyMap, SCAN_LIMIT } from './few-key-map.js';
import type { ToolCall } from './tool-call.js';

/**
 * The tool results a trace's model spans were given back (the `tool` messages, `tool_result`
 * blocks and the like in their input), gathered while the trace's spans are read
 * ({@link FedBackResults.add}), then given to the calls they answer ({@link FedBackResults.apply}).
 *
 * A result names its call by id only. Where every call of the trace has an id of its own, each
 * call takes the first result seen with its id. Where calls share an id (providers that number
 * calls per response give `call_0` every turn), or one span's input gives an id twice (an earlier
 * turn's call replayed), a result is matched by position: in one span's
 * input, the last result with that id answers the latest call with that id placed before the span,
 * the one before it the call before, and so on back; results left over are of calls outside the
 * trace (an earlier turn's, replayed). A span placed before every call of the id answers none of
 * them: the results in its input are an earlier turn's (a requested call is placed at its
 * request's end, so the turn's first request starts before the calls it asks for). A limit of
 * that rule: where ids are shared and a tool span's clock runs ahead of the model's by more than
 * the call took, its call is placed after the request holding its result, which it does not get
 * (a tool span records its own result, so only an outcome the result alone says is lost).
 *
 * Work: where ids are the calls' own, a scan of each span's results and of the trace's calls (a `Map` past
 * {@link SCAN_LIMIT} calls) and a lookup a call; where some are shared, one pass more over the
 * results gathered, a sort of those calls, and a binary search per span and shared id.
 */
export class FedBackResults {
  readonly #first = new FewKeyMap<string, ToolResultSeen>();
  /** Each span's results as its extractor gave them (in message order), and that span. */
  readonly #lists: (readonly ToolResultSeen[])[] = [];
  readonly #spans: SpanDigest[] = [];
  /** Ids one span's input gives twice or more (an earlier turn's call of the same id replayed). */
  #repeated: Set<string> | undefined;

  /** The results `span`'s input holds, in message order. */
  add(span: SpanDigest, results: readonly ToolResultSeen[]): void {
    if (results.length === 0) return;
    this.#lists.push(results);
    this.#spans.push(span);
    if (results.length > 1) this.#repeated = repeatedIds(results, this.#repeated);
    for (let r = 0; r < results.length; r++) {
      const result = results[r]!;
      if (!this.#first.has(result.callId)) this.#first.set(result.callId, result);
    }
  }

  /** Gives each of `calls` the result fed back for it, where one was (see the class). */
  apply(calls: readonly ToolCall[]): void {
    if (this.#lists.length === 0) return;
    const shared = repeatedIds(calls, this.#repeated);
    for (let c = 0; c < calls.length; c++) {
      const call = calls[c]!;
      const id = call.callId;
      if (id === undefined || shared?.has(id)) continue;
      const seen = this.#first.get(id);
      if (seen) take(call, seen);
    }
    if (shared) this.#byPosition(shared, calls);
  }

  /** The calls whose ids are `shared`, matched from each span's end back (see the class). */
  #byPosition(shared: ReadonlySet<string>, calls: readonly ToolCall[]): void {
    const byId = new Map<string, ToolCall[]>();
    for (let c = 0; c < calls.length; c++) {
      const call = calls[c]!;
      if (call.callId === undefined || !shared.has(call.callId)) continue;
      const list = byId.get(call.callId);
      if (list) list.push(call);
      else byId.set(call.callId, [call]);
    }
    for (const list of byId.values()) list.sort(byStart);
    // A call takes the first span's answer for it, as a call of its own id does.
    const answered = new Set<ToolCall>();
    for (let l = 0; l < this.#lists.length; l++) {
      const results = this.#lists[l]!;
      const at = this.#spans[l]!.startTimeUnixNano;
      // Per id, the next call back to answer in this span: found once, by a binary search.
      let next: Map<string, number> | undefined;
      for (let r = results.length - 1; r >= 0; r--) {
        const seen = results[r]!;
        const ofId = byId.get(seen.callId);
        if (ofId === undefined) continue;
        next ??= new Map();
        let n = next.get(seen.callId);
        // Only a call placed before the span can have its result in the span's input.
        n ??= placedBefore(ofId, at) - 1;
        next.set(seen.callId, n - 1);
        if (n < 0) continue;
        const call = ofId[n]!;
        if (answered.has(call)) continue;
        answered.add(call);
        take(call, seen);
      }
    }
  }
}

/** How many of `calls` (in start order) are placed at or before `at`: a binary search. */
function placedBefore(calls: readonly ToolCall[], at: bigint): number {
  let lo = 0;
  let hi = calls.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (calls[mid]!.startTimeUnixNano <= at) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** `seen` given to `call`: its result where it has none, its failure where it had none. */
function take(call: ToolCall, seen: ToolResultSeen): void {
  if (call.result === undefined) call.result = seen.result;
  if (seen.isError && call.outcome === 'ok') {
    call.outcome = seen.refused && call.source === 'requested' ? 'refused' : 'error';
    call.error ??= seen.error ?? 'the tool result was marked as an error';
  }
}

/**
 * The ids two or more of `items` have (items without one left out), added to `into` (made when one
 * is found): a scan of the items before each while there are few (no allocation in the usual
 * trace), a `Set` past {@link SCAN_LIMIT}.
 */
function repeatedIds(
  items: readonly { readonly callId?: string | undefined }[],
  into: Set<string> | undefined,
): Set<string> | undefined {
  let repeated = into;
  if (items.length <= SCAN_LIMIT) {
    for (let c = 1; c < items.length; c++) {
      const id = items[c]!.callId;
      if (id === undefined) continue;
      for (let p = 0; p < c; p++)
        if (items[p]!.callId === id) {
          (repeated ??= new Set()).add(id);
          break;
        }
    }
    return repeated;
  }
  const seen = new Set<string>();
  for (let c = 0; c < items.length; c++) {
    const id = items[c]!.callId;
    if (id === undefined) continue;
    if (seen.has(id)) (repeated ??= new Set()).add(id);
    else seen.add(id);
  }
  return repeated;
}
