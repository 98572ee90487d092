import type { SpanDigest } from './span-digest.js';

/**
 * Where the receiver hands accepted spans: the trace assembler (memory or Redis). `accept`
 * resolves once the spans are stored; it throws `SS_INGEST_SATURATED` (buffer full → 429) or
 * `SS_INGEST_UNAVAILABLE` (store down → 503), with `retryAfterSeconds`, so exporters retry
 * instead of losing data. Anything else is a 500.
 */
export interface SpanSink {
  accept(spans: SpanDigest[]): Promise<void>;
}
