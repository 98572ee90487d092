/** What the memory driver's trace assembler counts, for metrics and tests (`stats()`). */
export interface MemoryTraceAssemblerStats {
  bufferedTraces: number;
  heldSpans: number;
  /** Bytes of the held spans' attribute records (buffered or being scored), outside the heap. */
  heldBytes: number;
  /** Scored traces whose evaluation spans wait for delivery (or a retry of it). */
  waitingDeliveries: number;
  /** Requests waiting for room in the full buffer, and their spans (not in `heldSpans`). */
  waitingRequests: number;
  waitingSpans: number;
  /** Spans counted as held before they are added (requests being added, or let in). */
  reservedSpans: number;
  /** Spans refused because their trace passed `maxSpansPerTrace`. */
  truncatedSpans: number;
  scored: number;
  lateSpans: number;
  failed: number;
  retries: number;
}
