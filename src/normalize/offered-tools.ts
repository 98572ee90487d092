import type { SpanDigest } from '../ingest/span-digest.js';
import { toolNames } from './canonical-tool-name.js';
import { EXTRACTORS } from './extractors/index.js';
import type { ToolCallExtractor } from './extractors/extractor.js';
import { SpanIndex } from './span-index.js';
import type { OfferedTool } from './tool-definitions.js';
import type { ToolCall } from './tool-call.js';

/**
 * The tools each span shows were offered to a model: a model call's own list, or an agent span's
 * (the tools an agent has, for every model call it makes). By span id, each list deduped by name
 * (the first definition of a name wins, as conventions on one span agree); empty when the trace
 * records no offered tools.
 */
export type OfferedToolsBySpan = ReadonlyMap<string, readonly OfferedTool[]>;

/**
 * Reads every convention's offered tools (each extractor's `offered`) from one trace's spans.
 * Of a span id sent twice, the first copy counts (`SpanIndex.isCounted`): `index`, the spans'
 * index when the caller has one, else made at the first offering span. Pure; spans in any order.
 */
export function extractOfferedTools(
  spans: readonly SpanDigest[],
  extractors: readonly ToolCallExtractor[] = EXTRACTORS,
  index?: SpanIndex,
): OfferedToolsBySpan {
  const readers = offerReaders(extractors);
  const out = new Map<string, OfferedTool[]>();
  let byId = index;
  for (const span of spans) {
    let list: OfferedTool[] | undefined;
    let names: Set<string> | undefined;
    for (const reader of readers) {
      const tools = reader.offered!(span);
      if (!tools?.length) continue;
      list ??= [];
      names ??= new Set();
      for (const tool of tools) {
        const { name } = tool;
        if (names.has(name)) continue;
        names.add(name);
        list.push(tool);
      }
    }
    if (list && (byId ??= new SpanIndex(spans)).isCounted(span)) out.set(span.spanId, list);
  }
  return out;
}

const readersOf = new WeakMap<readonly ToolCallExtractor[], ToolCallExtractor[]>();

function offerReaders(extractors: readonly ToolCallExtractor[]): ToolCallExtractor[] {
  let readers = readersOf.get(extractors);
  if (!readers)
    readersOf.set(extractors, (readers = extractors.filter(e => e.offered !== undefined)));
  return readers;
}

/** The tools offered to the model call behind one tool call, and the span that records them. */
export interface OfferedToCall {
  spanId: string;
  tools: readonly OfferedTool[];
}

/**
 * The offered tools that apply to `call`: those of the model span that requested it, when that
 * span records any; else those of the span closest to the call in the span tree (the deepest
 * common ancestor: a sibling model call before its agent, a call's own agent before another
 * agent's), the latest one that started before the call on a tie. `undefined` when the trace
 * records no offered tools.
 *
 * The offering spans are indexed once per `offered` and `index` (both are one trace's, and do
 * not change): each call then walks up its own ancestors only, at most 64.
 */
export function offeredToCall(
  call: Pick<ToolCall, 'spanId' | 'requestedBy' | 'startTimeUnixNano'>,
  offered: OfferedToolsBySpan,
  index: SpanIndex,
): OfferedToCall | undefined {
  if (offered.size === 0) return undefined;
  if (call.requestedBy !== undefined) {
    const own = offered.get(call.requestedBy);
    if (own) return { spanId: call.requestedBy, tools: own };
  }
  const spanId = offeringSpansOf(offered, index).closest(
    call.requestedBy ?? call.spanId,
    call.startTimeUnixNano,
  );
  return spanId === undefined ? undefined : { spanId, tools: offered.get(spanId)! };
}

/** Ancestors a walk up the span tree reads, at most: a deeper span counts as unrelated. */
const MAX_HOPS = 64;

/**
 * Calls of one trace whose chain of parent ids loops that are resolved by a walk up from every
 * offering span ({@link closestByScan}: offering spans × {@link MAX_HOPS} reads each). Only a
 * malformed (or hostile) trace has such loops; past this many, a call is read by the index like
 * any other, which on a loop may choose a farther offering span than the scan would.
 */
export const MAX_LOOP_SCANS = 32;

const offeringSpans = new WeakMap<OfferedToolsBySpan, OfferingSpans>();

function offeringSpansOf(offered: OfferedToolsBySpan, index: SpanIndex): OfferingSpans {
  let found = offeringSpans.get(offered);
  if (found?.index !== index)
    offeringSpans.set(offered, (found = new OfferingSpans(offered, index)));
  return found;
}

/** An offering span and when it started. */
interface Offering {
  spanId: string;
  start: bigint;
}

/**
 * One trace's offering spans, indexed: each span id with the offering spans at or below it
 * (within {@link MAX_HOPS} levels), each list by start. A call's closest offering span is in the
 * list of its nearest ancestor that has one: the offering spans there meet the call at that
 * ancestor, and none meets it lower. Where a call's chain of parent ids loops (only a malformed
 * trace's does), that need not hold: such a call walks up from every offering span instead
 * ({@link closestByScan}), as every call once did, for the first {@link MAX_LOOP_SCANS} such calls.
 */
class OfferingSpans {
  /** Every offering span in the trace, by start. */
  readonly #all: Offering[] = [];
  readonly #below = new Map<string, Offering[]>();
  /** Span ids known to sit on a loop of parent ids, or not: read for chains cut at the bound. */
  #onLoop: Map<string, boolean> | undefined;
  /** Calls on a loop resolved by a scan so far (at most {@link MAX_LOOP_SCANS}). */
  #scans = 0;

  constructor(
    private readonly offered: OfferedToolsBySpan,
    readonly index: SpanIndex,
  ) {
    for (const spanId of offered.keys()) {
      const span = index.get(spanId);
      if (!span) continue;
      const offering = { spanId, start: span.startTimeUnixNano };
      this.#all.push(offering);
      // The span and its ancestors, up to the bound, as a walk up from the call reads them.
      let at = spanId;
      for (let i = 1; ; i++) {
        let list = this.#below.get(at);
        if (!list) this.#below.set(at, (list = []));
        // A loop of parent ids comes back to a span this walk listed it under.
        if (list[list.length - 1] !== offering) list.push(offering);
        if (i === MAX_HOPS) break;
        at = (i === 1 ? span : index.get(at))?.parentSpanId ?? '';
        if (at === '') break;
      }
    }
    // A stable sort: offering spans that started together keep their order in `offered`, and
    // the first of them wins a tie, as it did in the scan.
    this.#all.sort(byStart);
    for (const list of this.#below.values()) list.sort(byStart);
  }

  /** The offering span closest to `anchor` (see {@link offeredToCall}), for a call at `start`. */
  closest(anchor: string, start: bigint): string | undefined {
    // The anchor and its ancestors, nearest first, as far as the bound or a loop.
    const chain: string[] = [];
    const seen = new Set<string>();
    let id = anchor;
    while (id !== '' && chain.length < MAX_HOPS && !seen.has(id)) {
      chain.push(id);
      seen.add(id);
      id = this.index.get(id)?.parentSpanId ?? '';
    }
    // On a loop a walk up from an offering span may meet the chain at one span and pass a nearer
    // one after: the nearest-first reading below would not be the first meeting.
    if (
      id !== '' &&
      this.#scans < MAX_LOOP_SCANS &&
      (seen.has(id) || this.#isOnLoop(chain[chain.length - 1]!))
    ) {
      this.#scans++;
      return closestByScan(anchor, start, this.offered, this.index);
    }
    for (const at of chain) {
      const below = this.#below.get(at);
      if (below) return latestBy(below, start).spanId;
    }
    return this.#all.length ? latestBy(this.#all, start).spanId : undefined;
  }

  // Whether walking up from `id` comes back to it; each span id is walked once per trace.
  #isOnLoop(id: string): boolean {
    const known = (this.#onLoop ??= new Map<string, boolean>());
    const path: string[] = [];
    const at = new Map<string, number>();
    let next = id;
    while (next !== '' && !known.has(next) && !at.has(next)) {
      at.set(next, path.length);
      path.push(next);
      next = this.index.get(next)?.parentSpanId ?? '';
    }
    // A walk that reaches a span already known ran on no loop before it.
    const loopFrom = at.get(next) ?? path.length;
    path.forEach((p, i) => known.set(p, i >= loopFrom));
    return known.get(id)!;
  }
}

function byStart(a: Offering, b: Offering): number {
  return a.start < b.start ? -1 : a.start > b.start ? 1 : 0;
}

/**
 * In `list` (by start, non-empty): the latest to start at or before `start`, the first listed of
 * those that started then; else the first to start after it.
 */
function latestBy(list: readonly Offering[], start: bigint): Offering {
  const after = firstIndex(list, o => o.start > start);
  if (after === 0) return list[0]!;
  const latest = list[after - 1]!.start;
  return list[firstIndex(list, o => o.start >= latest)]!;
}

// The first index of a sorted `list` where `past` holds (it holds from there on), or its length.
function firstIndex(list: readonly Offering[], past: (o: Offering) => boolean): number {
  let low = 0;
  let high = list.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (past(list[mid]!)) high = mid;
    else low = mid + 1;
  }
  return low;
}

/**
 * {@link offeredToCall}'s choice by a walk up from every offering span: for a parent chain that
 * loops, where the index's nearest-first reading does not hold.
 */
function closestByScan(
  anchor: string,
  start: bigint,
  offered: OfferedToolsBySpan,
  index: SpanIndex,
): string | undefined {
  // Hops from the anchor up to each of its ancestors (the anchor itself at 0).
  const up = new Map<string, number>();
  let id: string = anchor;
  for (let hops = 0; id !== '' && hops < MAX_HOPS && !up.has(id); hops++) {
    up.set(id, hops);
    id = index.get(id)?.parentSpanId ?? '';
  }
  let best: { spanId: string; hops: number; before: boolean; start: bigint } | undefined;
  for (const spanId of offered.keys()) {
    const span = index.get(spanId);
    if (!span) continue;
    let hops: number | undefined;
    let at: string = spanId;
    for (let i = 0; at !== '' && i < MAX_HOPS; i++) {
      hops = up.get(at);
      if (hops !== undefined) break;
      at = index.get(at)?.parentSpanId ?? '';
    }
    hops ??= MAX_HOPS;
    const before = span.startTimeUnixNano <= start;
    const better =
      !best ||
      hops < best.hops ||
      (hops === best.hops &&
        (before !== best.before
          ? before
          : before
            ? span.startTimeUnixNano > best.start
            : span.startTimeUnixNano < best.start));
    if (better) best = { spanId, hops, before, start: span.startTimeUnixNano };
  }
  return best?.spanId;
}

/**
 * The offered tool of `rawName`, compared as spanscore compares tool names (namespaces stripped,
 * case and separators folded: `functions.get_weather` is `getWeather`); `undefined` when none is.
 * A tool of that very name wins over one whose name folds to it, and the first listed wins a tie.
 *
 * Work per call is bounded whatever the list's length: a list of more than
 * {@link SCANNED_TOOLS} is indexed by name and folded name on its first lookup (each of its
 * names folded once), then read by key. `tools` must not change after it is first looked up in
 * (the lists of {@link extractOfferedTools} do not). A scan of every name for every call, as this
 * once did, folded each name again once the name cache (10,000 names) was spent: 20,000 names
 * offered and 1,000 calls of another tool folded 20 million names (59 s).
 */
export function findOfferedTool(
  tools: readonly OfferedTool[],
  rawName: string,
): OfferedTool | undefined {
  const folded = toolNames(rawName).folded;
  if (tools.length <= SCANNED_TOOLS)
    return (
      tools.find(t => t.name === rawName) ?? tools.find(t => toolNames(t.name).folded === folded)
    );
  let lookup = toolLookups.get(tools);
  if (!lookup) toolLookups.set(tools, (lookup = new ToolLookup(tools)));
  return lookup.byName.get(rawName) ?? lookup.byFolded.get(folded);
}

/** Offered tools looked up by a scan of the list, at most: a longer list is indexed once. */
export const SCANNED_TOOLS = 32;

const toolLookups = new WeakMap<readonly OfferedTool[], ToolLookup>();

/** One list's tools by name and by folded name, the first listed of each. */
class ToolLookup {
  readonly byName = new Map<string, OfferedTool>();
  readonly byFolded = new Map<string, OfferedTool>();

  constructor(tools: readonly OfferedTool[]) {
    for (const tool of tools) {
      if (!this.byName.has(tool.name)) this.byName.set(tool.name, tool);
      const folded = toolNames(tool.name).folded;
      if (!this.byFolded.has(folded)) this.byFolded.set(folded, tool);
    }
  }
}
