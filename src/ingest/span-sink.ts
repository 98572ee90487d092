import type { SpanscoreError } from '../errors/spanscore-error.js';
import type { SpanDigest } from './span-digest.js';

/**
 * Where the receiver hands accepted spans: the trace assembler (memory or Redis). `accept`
 * resolves once the spans are stored (the memory driver may first hold a request while its
 * buffer is full, up to `assembly.admissionWaitMs`); it throws `SS_INGEST_SATURATED` (buffer full → 429) or
 * `SS_INGEST_UNAVAILABLE` (store down → 503), with `retryAfterSeconds`, so exporters retry
 * instead of losing data. Anything else is a 500.
 */
export interface SpanSink {
  /**
   * Stores the spans, or refuses the batch whole (see above). Spans it stores only in part come
   * back as {@link PartlyRefused}: the receiver reports them in `partialSuccess`. `signal` aborts
   * when the sender has closed its connection: a sink holding the request for room lets it go
   * (its spans are not kept, as no sender was told they were) and rejects with the signal's
   * reason; spans already stored stay.
   */
  accept(spans: SpanDigest[], signal?: AbortSignal): Promise<PartlyRefused | void>;
  /**
   * The refusal `accept` would give any batch now (the buffer is full, or the sink is shutting
   * down), or `undefined`. Cheap: the receiver asks before it decodes a request, so a sender
   * retrying against a full buffer costs no decoding. Optional: without it every request is
   * decoded and `accept` decides.
   */
  refusesNow?(): SpanscoreError | undefined;
  /**
   * Shutting down: refuses (503) the requests waiting for room, and lets none wait from now on,
   * so that the HTTP server, which waits for the requests under way, closes without waiting for
   * them. Optional: a sink that never holds a request has nothing to do.
   */
  stopWaiting?(): void;
}

/** Spans of an accepted batch that were not kept, and why (e.g. a trace past its span limit). */
export interface PartlyRefused {
  refusedSpans: number;
  reason: string;
}
