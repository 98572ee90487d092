import type { SpanDigest } from '../ingest/span-digest.js';
import { SpanIndex } from './span-index.js';

/**
 * A trace's root, defined here once, in its two forms:
 *
 * - {@link findRoot} reads a trace as scored, all its spans at hand: the root is a span with no
 *   parent or whose parent is not among the spans (a trace continued from another process), the
 *   earliest when there are several.
 * - {@link isRootSpan} reads a trace still arriving (the queue's readiness): a span whose parent has
 *   not arrived yet may be a child whose parent comes later, so only a parentless span or a
 *   service's entry (kind SERVER or CONSUMER) with an unknown parent counts. Spans are exported as
 *   they end, so a root that arrived has ended.
 *
 * They differ only in what they can know: on a complete trace, a span that {@link isRootSpan}
 * accepts is a candidate of {@link findRoot} too.
 */

/**
 * The root span: parentless, or whose parent is not among the spans; the earliest wins. `byId`:
 * the spans' index, when the caller has one (`indexTrace`).
 */
export function findRoot(
  spans: readonly SpanDigest[],
  byId: SpanIndex = new SpanIndex(spans),
): SpanDigest | undefined {
  let root: SpanDigest | undefined;
  // Indexed: `for…of` made an iterator and a result object a span (once a trace, rarely optimized).
  for (let i = 0; i < spans.length; i++) {
    const span = spans[i]!;
    const parent = span.parentSpanId;
    if (parent !== '' && byId.get(parent) !== undefined) continue;
    if (!root || span.startTimeUnixNano < root.startTimeUnixNano) root = span;
  }
  return root;
}

/** Span kinds (OTLP `Span.SpanKind`) that enter a service: SERVER and CONSUMER. */
const SERVER = 2;
const CONSUMER = 5;

/**
 * True when `span` ends the root part of a trace still arriving: it has no parent, or it is a
 * service's entry (kind SERVER or CONSUMER) whose parent is not among `knownSpanIds`.
 */
export function isRootSpan(
  span: SpanDigest,
  knownSpanIds: { has(spanId: string): boolean },
): boolean {
  if (span.parentSpanId === '') return true;
  return (span.kind === SERVER || span.kind === CONSUMER) && !knownSpanIds.has(span.parentSpanId);
}

/** When a trace started: its root span's start, else its earliest span's (0 for no spans). */
export function traceStartOf(spans: readonly SpanDigest[], root: SpanDigest | undefined): bigint {
  if (root) return root.startTimeUnixNano;
  let first: bigint | undefined;
  for (const span of spans)
    if (first === undefined || span.startTimeUnixNano < first) first = span.startTimeUnixNano;
  return first ?? 0n;
}
