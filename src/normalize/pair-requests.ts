import type { SpanDigest } from '../ingest/span-digest.js';
import { absorb } from './absorb-call.js';
import { callKey } from './call-key.js';
import { isSorted, sortRequests } from './call-order.js';
import { FewKeyMap } from './few-key-map.js';
import { INPUT_BOUNDS, inputBoundHits } from './input-bounds.js';
import type { RequestedCall } from './requested-call.js';
import { RunsById } from './runs-by-id.js';
import type { SpanIndex } from './span-index.js';
import { stableJson } from './stable-json.js';
import { toToolCall } from './to-tool-call.js';
import type { ToolCall } from './tool-call.js';

/**
 * Pairs each call a model requested with the run that executed it, and appends to `calls` (the
 * trace's executed calls, merged) a ToolCall for each request nothing ran, once. A request is
 * merged into its run (`absorb`): the run of its call id and tool (`callKey`), else one-to-one
 * by name an unclaimed id-less run that started after the model call began (see
 * {@link idleRun}). A request seen twice (replayed in a later model call's input, or reported by
 * a model span and its wrapper) is appended once. A request nothing ran is placed after the runs its model span's other requests
 * were paired with. `requested` may be reordered in place.
 *
 * Bounded: pairing by name and arguments examines at most `INPUT_BOUNDS.maxPairingSteps`
 * candidates a trace, each counted as it is examined. A request looks only at the runs of its
 * tool, past those already claimed, and at the kept requests of its own name and arguments, so a
 * trace whose runs pair as they come costs steps linear in its calls. Past the bound the requests
 * left are not paired by name (they are kept as requested calls) nor checked for a wrapper's
 * duplicate, counted once in `inputBoundHits.pairingSteps` (the run's `input_bounded`
 * diagnostic).
 */
export function appendUnmatchedRequests(
  requested: RequestedCall[],
  calls: ToolCall[],
  byId: SpanIndex,
  aliases: ReadonlyMap<string, string> | undefined,
): void {
  // The runs: the calls as given. The requests appended after them are never runs.
  const runs = calls.length;
  const executedIds = new RunsById(calls, runs);
  // Id-less runs a request took: made only when one is taken.
  let claimed: FewKeyMap<ToolCall, true> | undefined;
  let keptIds: FewKeyMap<string, ToolCall> | undefined;
  // Id-less requests kept, by name and arguments (a wrapper's duplicate has both).
  let keptNoId: Map<string, SpanDigest[]> | undefined;
  // Id-less runs by tool, in call order: made when a request first looks for one.
  let idleByName: ReadonlyMap<string, IdleRuns> | undefined;
  // Latest start of an executed call each requesting span was matched to: a request that never
  // ran is placed after its executed siblings, not before them.
  const ranUntil = new FewKeyMap<string, bigint>(requested.length);
  // Usually in order already (model spans end in start order): sorted only if not.
  const ordered = isSorted(requested) ? requested : sortRequests(requested);
  const steps: Steps = { left: INPUT_BOUNDS.maxPairingSteps };
  const exact = exactRuns(ordered, calls, executedIds, steps);
  for (let i = 0; i < ordered.length; i++) {
    const call = ordered[i]!;
    const span = call.span;
    const sameId =
      call.callId === undefined
        ? undefined
        : (executedIds.get(call.callId, call.canonicalName) ??
          keptIds?.get(callKey(call.callId, call.canonicalName)));
    // Executed spans without a call id (OpenInference, LangSmith, Logfire, Traceloop tools) pair
    // one-to-one by name with an unclaimed run that started after the model call began: first the
    // one whose arguments are the request's, else the first whose arguments no later request
    // shares (a request the framework refused before running it, then the corrected one that ran,
    // must not take the corrected run).
    const pending = exact.pending.get(call);
    if (pending && spend(steps, pending.length))
      for (const e of pending) exact.wanted.set(e, exact.wanted.get(e)! - 1);
    const run =
      sameId ??
      idleRun(
        call,
        pending,
        (idleByName ??= idlessRunsByName(calls, runs)).get(call.canonicalName),
        claimed,
        exact.wanted,
        steps,
      );
    if (run) {
      absorb(run, call);
      // Only an id-less run can be taken by name: a run with a call id needs no claim.
      if (run.callId === undefined) (claimed ??= new FewKeyMap(runs)).set(run, true);
      // The same call replayed in a later model call's input must find this run by its id.
      if (run.source === 'executed') executedIds.learn(run);
      if (run.source === 'executed') {
        const prev = ranUntil.get(span.spanId) ?? 0n;
        if (run.startTimeUnixNano > prev) ranUntil.set(span.spanId, run.startTimeUnixNano);
      }
      continue;
    }
    if (call.callId === undefined) {
      // The same request reported by a model span and its wrapper (ai.generateText/doGenerate).
      const key = `${call.canonicalName}\u0000${stableJson(call.arguments)}`;
      const same = (keptNoId ??= new Map<string, SpanDigest[]>()).get(key);
      if (same === undefined) keptNoId.set(key, [span]);
      else {
        if (
          spend(steps, same.length) &&
          same.some(k => isAncestor(k, span, byId) || isAncestor(span, k, byId))
        )
          continue;
        same.push(span);
      }
    }
    const kept = toToolCall(
      call.extracted,
      span,
      'requested',
      call.convention,
      aliases,
      span.endTimeUnixNano,
    );
    if (call.callId !== undefined)
      (keptIds ??= new FewKeyMap(1)).set(callKey(call.callId, call.canonicalName), kept);
    calls.push(kept);
  }
  pairingWork.steps += INPUT_BOUNDS.maxPairingSteps - Math.max(steps.left, 0);
  if (steps.left < 0) inputBoundHits.pairingSteps++;
  for (let i = runs; i < calls.length; i++) {
    const call = calls[i]!;
    const after = ranUntil.get(call.spanId);
    if (after !== undefined && after > call.startTimeUnixNano) call.startTimeUnixNano = after;
  }
}

/** One tool's id-less runs in call order, and the first of them not yet claimed. */
interface IdleRuns {
  runs: ToolCall[];
  from: number;
}

/**
 * The id-less runs among the first `runs` of `calls`, by tool name; a trace whose runs all have a
 * call id (most: a request is looked up here only when its id found no run) shares one empty map,
 * where an empty map of its own took about 180 bytes.
 */
function idlessRunsByName(calls: readonly ToolCall[], runs: number): ReadonlyMap<string, IdleRuns> {
  let byName: Map<string, IdleRuns> | undefined;
  for (let i = 0; i < runs; i++) {
    const e = calls[i]!;
    if (e.callId !== undefined) continue;
    const named = byName?.get(e.canonicalName);
    if (named) named.runs.push(e);
    else (byName ??= new Map()).set(e.canonicalName, { runs: [e], from: 0 });
  }
  return byName ?? NO_IDLE_RUNS;
}

const NO_IDLE_RUNS: ReadonlyMap<string, IdleRuns> = new Map();

/**
 * The unclaimed id-less run of the request's tool that started after its model call began: first
 * among `pending` (the runs with the request's arguments), else the first of the tool's runs
 * (`named`) no later request still wants. Each candidate examined is a step; none is left once
 * the budget is spent.
 */
function idleRun(
  call: RequestedCall,
  pending: readonly ToolCall[] | undefined,
  named: IdleRuns | undefined,
  claimed: FewKeyMap<ToolCall, true> | undefined,
  wanted: ReadonlyMap<ToolCall, number>,
  steps: Steps,
): ToolCall | undefined {
  if (pending)
    for (const e of pending) {
      if (!spend(steps, 1)) return undefined;
      if (isIdle(e, call, claimed)) return e;
    }
  if (named === undefined) return undefined;
  // A claim is for good: the claimed runs at the front are passed once, not at every request.
  const { runs } = named;
  while (named.from < runs.length && claimed?.has(runs[named.from]!) === true) named.from++;
  for (let i = named.from; i < runs.length; i++) {
    if (!spend(steps, 1)) return undefined;
    const e = runs[i]!;
    if (isIdle(e, call, claimed) && !(wanted.get(e)! > 0)) return e;
  }
  return undefined;
}

// An id-less run of the request's tool, unclaimed, that started after the model call began.
function isIdle(
  e: ToolCall,
  call: RequestedCall,
  claimed: FewKeyMap<ToolCall, true> | undefined,
): boolean {
  return (
    e.callId === undefined &&
    e.canonicalName === call.canonicalName &&
    e.startTimeUnixNano >= call.span.startTimeUnixNano &&
    claimed?.has(e) !== true
  );
}

/**
 * For each request that no call id pairs, the id-less runs of its tool with the same arguments
 * (canonical JSON), and how many requests still want each such run.
 */
function exactRuns(
  requested: readonly RequestedCall[],
  executed: readonly ToolCall[],
  executedIds: RunsById,
  steps: Steps,
): { pending: Map<RequestedCall, ToolCall[]>; wanted: Map<ToolCall, number> } {
  let idless: ToolCall[] | undefined;
  // An index loop: this scan runs for every trace, and a for-of left an iterator result per call.
  for (let i = 0; i < executed.length; i++) {
    const e = executed[i]!;
    if (e.callId === undefined && e.arguments !== undefined) (idless ??= []).push(e);
  }
  // Nothing is added to the maps of a trace without id-less runs: every such trace shares these.
  if (idless === undefined) return NO_EXACT_RUNS;
  const pending = new Map<RequestedCall, ToolCall[]>();
  const wanted = new Map<ToolCall, number>();
  const byKey = new Map<string, ToolCall[]>();
  for (const e of idless) {
    const key = `${e.canonicalName}\u0000${stableJson(e.arguments)}`;
    const list = byKey.get(key);
    if (list) list.push(e);
    else byKey.set(key, [e]);
    wanted.set(e, 0);
  }
  for (const call of requested) {
    if (call.callId !== undefined && executedIds.has(call.callId, call.canonicalName)) continue;
    const runs = byKey.get(`${call.canonicalName}\u0000${stableJson(call.arguments)}`);
    if (!runs || !spend(steps, runs.length)) continue;
    pending.set(call, runs);
    for (const e of runs) wanted.set(e, wanted.get(e)! + 1);
  }
  return { pending, wanted };
}

const NO_EXACT_RUNS = {
  pending: new Map<RequestedCall, ToolCall[]>(),
  wanted: new Map<ToolCall, number>(),
};

/** Candidates this process's pairings examined, in all (for tests that count the work). */
export const pairingWork = { steps: 0 };

/** What is left of a trace's pairing budget (`INPUT_BOUNDS.maxPairingSteps`); below 0 once spent. */
interface Steps {
  left: number;
}

/**
 * Takes `n` steps from the budget (a candidate examined, or a list of `n` walked whole): true when
 * they were there to take. The first refusal leaves it below 0, and every later one is refused.
 */
function spend(steps: Steps, n: number): boolean {
  if (steps.left < n) {
    steps.left = -1;
    return false;
  }
  steps.left -= n;
  return true;
}

function isAncestor(ancestor: SpanDigest, span: SpanDigest, byId: SpanIndex): boolean {
  let parentId = span.parentSpanId;
  for (let hops = 0; parentId !== '' && hops < 64; hops++) {
    if (parentId === ancestor.spanId) return true;
    parentId = byId.get(parentId)?.parentSpanId ?? '';
  }
  return false;
}
