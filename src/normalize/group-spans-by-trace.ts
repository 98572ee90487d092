import type { SpanDigest } from '../ingest/span-digest.js';

/**
 * Groups spans by trace id, in first-seen order. A span id seen twice in one trace (an exporter
 * retry, a file read twice) is kept once: the later copy wins.
 */
export function groupSpansByTrace(spans: Iterable<SpanDigest>): Map<string, SpanDigest[]> {
  const byTrace = new Map<string, Map<string, SpanDigest>>();
  for (const span of spans) {
    let trace = byTrace.get(span.traceId);
    if (!trace) byTrace.set(span.traceId, (trace = new Map<string, SpanDigest>()));
    trace.set(span.spanId, span);
  }
  const out = new Map<string, SpanDigest[]>();
  for (const [traceId, trace] of byTrace) out.set(traceId, [...trace.values()]);
  return out;
}
