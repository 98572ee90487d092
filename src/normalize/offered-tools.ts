import type { SpanDigest } from '../ingest/span-digest.js';
import { toolNames } from './canonical-tool-name.js';
import { EXTRACTORS } from './extractors/index.js';
import type { ToolCallExtractor } from './extractors/extractor.js';
import type { SpanIndex } from './span-index.js';
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
 * Pure; spans in any order.
 */
export function extractOfferedTools(
  spans: readonly SpanDigest[],
  extractors: readonly ToolCallExtractor[] = EXTRACTORS,
): OfferedToolsBySpan {
  const readers = offerReaders(extractors);
  const out = new Map<string, OfferedTool[]>();
  for (const span of spans) {
    let list: OfferedTool[] | undefined;
    for (const reader of readers) {
      const tools = reader.offered!(span);
      if (!tools?.length) continue;
      if (!list) {
        list = [...tools];
        continue;
      }
      for (const tool of tools) if (!list.some(t => t.name === tool.name)) list.push(tool);
    }
    if (list) out.set(span.spanId, dedupeByName(list));
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

function dedupeByName(tools: OfferedTool[]): OfferedTool[] {
  const seen = new Set<string>();
  return tools.filter(t => (seen.has(t.name) ? false : (seen.add(t.name), true)));
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
  const anchor = call.requestedBy ?? call.spanId;
  // Hops from the anchor up to each of its ancestors (the anchor itself at 0).
  const up = new Map<string, number>();
  let id: string = anchor;
  for (let hops = 0; id !== '' && hops < 64 && !up.has(id); hops++) {
    up.set(id, hops);
    id = index.get(id)?.parentSpanId ?? '';
  }
  let best: { spanId: string; hops: number; before: boolean; start: bigint } | undefined;
  for (const spanId of offered.keys()) {
    const span = index.get(spanId);
    if (!span) continue;
    let hops: number | undefined;
    let at: string = spanId;
    for (let i = 0; at !== '' && i < 64; i++) {
      hops = up.get(at);
      if (hops !== undefined) break;
      at = index.get(at)?.parentSpanId ?? '';
    }
    if (hops === undefined) hops = 64;
    const before = span.startTimeUnixNano <= call.startTimeUnixNano;
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
  return best && { spanId: best.spanId, tools: offered.get(best.spanId)! };
}

/**
 * The offered tool of `rawName`, compared as spanscore compares tool names (namespaces stripped,
 * case and separators folded: `functions.get_weather` is `getWeather`); `undefined` when none is.
 */
export function findOfferedTool(
  tools: readonly OfferedTool[],
  rawName: string,
): OfferedTool | undefined {
  const folded = toolNames(rawName).folded;
  return (
    tools.find(t => t.name === rawName) ?? tools.find(t => toolNames(t.name).folded === folded)
  );
}
