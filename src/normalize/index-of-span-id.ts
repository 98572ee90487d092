import type { SpanDigest } from '../ingest/span-digest.js';

/**
 * The index of the first of `spans[0, upTo)` whose span id is `spanId`, or -1.
 *
 * Why not `===` alone: span ids are decoded per span, so two ids are the same string only by
 * content, and ids of one length (16 hex digits) compare by a call into the runtime each. The last
 * character is compared first, inline, which passes over all but one in sixteen of them (`| 0`:
 * an empty id's NaN as 0 on both sides, so equal ids always reach the whole comparison).
 */
export function indexOfSpanId(spans: readonly SpanDigest[], spanId: string, upTo: number): number {
  const last = spanId.charCodeAt(spanId.length - 1) | 0;
  for (let i = 0; i < upTo; i++) {
    const id = spans[i]!.spanId;
    if ((id.charCodeAt(id.length - 1) | 0) === last && id === spanId) return i;
  }
  return -1;
}
