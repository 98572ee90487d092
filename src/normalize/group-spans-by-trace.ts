import type { SpanDigest } from '../ingest/span-digest.js';
import { indexOfSpanId } from './index-of-span-id.js';

/** Spans of one trace up to which a repeated span id is looked for by scanning, not in a map. */
const SCAN_LIMIT = 64;

/**
 * Groups spans by trace id, in first-seen order. A span id seen twice in one trace (an exporter
 * retry, a file read twice) is kept once: its first copy, where it was first seen; a later copy
 * is dropped. Both drivers keep a span's first copy across requests too (`TraceByteBuffer.add`,
 * `RedisSpanBuffer.read`), so a span sent again, by a retry or by anyone else who knows its ids,
 * can never replace what was accepted and scored first.
 *
 * Each trace's spans go straight into its array; a repeated id is found by scanning the array
 * while the trace has at most 64 spans, then in a map of the trace's ids (so a large trace costs
 * one lookup a span, not a scan). A map per trace, then an array copied out of it, cost about 50
 * heap bytes a span.
 */
export function groupSpansByTrace(spans: Iterable<SpanDigest>): Map<string, SpanDigest[]> {
  const out = new Map<string, SpanDigest[]>();
  let ids: Map<SpanDigest[], Map<string, number>> | undefined;
  for (const span of spans) {
    const list = out.get(span.traceId);
    if (!list) {
      out.set(span.traceId, [span]);
      continue;
    }
    let at: number;
    if (list.length <= SCAN_LIMIT) at = indexOfSpanId(list, span.spanId, list.length);
    else {
      ids ??= new Map();
      let index = ids.get(list);
      if (!index) {
        index = new Map();
        for (let i = 0; i < list.length; i++) index.set(list[i]!.spanId, i);
        ids.set(list, index);
      }
      at = index.get(span.spanId) ?? -1;
      if (at === -1) index.set(span.spanId, list.length);
    }
    if (at === -1) list.push(span);
  }
  return out;
}
