import type { SpanDigest } from './span-digest.js';

/**
 * Where the receiver hands accepted spans: the trace assembler (memory or Redis). `accept`
 * resolves once the spans are stored; it throws `SS_INGEST_SATURATED` (buffer full → 429) or
 * `SS_INGEST_UNAVAILABLE` (store down → 503), with `retryAfterSeconds`, so exporters retry
 * instead of losing data. Anything else is a 500.
 */
export interface SpanSink {
  /**
   * Stores the spans, or refuses the batch whole (see above). Spans it stores only in part come
   * back as {@link PartlyRefused}: the receiver reports them in `partialSuccess`.
   */
  accept(spans: SpanDigest[]): Promise<PartlyRefused | void>;
}

/** Spans of an accepted batch that were not kept, and why (e.g. a trace past its span limit). */
export interface PartlyRefused {
  refusedSpans: number;
  reason: string;
}
