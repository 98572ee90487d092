import type { SpanDigest } from '../ingest/span-digest.js';
import type { Diagnostic } from '../normalize/inspect-trace.js';
import type { ExportRetryPolicy } from './export-retry.js';
import type { ReadinessPolicy } from './trace-readiness.js';

/** Options of `createMemoryTraceAssembler`. */
export interface MemoryTraceAssemblerOptions {
  /** Export failures are retried by age instead of by count. */
  exportRetry?: ExportRetryPolicy;
  policy: ReadinessPolicy;
  /**
   * Scores one complete trace; rejects with an `upstream` error to be retried. It may resolve with the
   * trace's delivery (the export of its evaluation spans), which then runs outside the scoring
   * slot: a trace waiting on the network does not keep another from being scored. A delivery that
   * rejects is retried like a failed scoring. `rescore`: the trace is scored again for late
   * spans, for the `rescore`th time (0 for its first scoring).
   */
  process: (
    traceId: string,
    spans: readonly SpanDigest[],
    attempt: { notes: Diagnostic[]; rescore?: number },
  ) => Promise<(() => Promise<void>) | void>;
  /** Traces scored at once (their deliveries wait outside this limit): `worker.concurrency`. */
  concurrency: number;
  /**
   * Spans held (buffered or being scored) before a request waits for room (`admissionWaitMs`)
   * or is refused, saturated (429). A trace's spans are released once it is scored: what waits
   * for the tracing backend is its delivery, bounded by `maxWaitingDeliveries`, so an export
   * outage never blocks ingest.
   * `assembly.maxBufferedSpans`.
   */
  maxBufferedSpans: number;
  /**
   * Bytes of held spans' attribute records (outside the heap) past which a request is refused
   * (429) while any span is held: `assembly.maxBufferedBytes`. @defaultValue no bound
   */
  maxBufferedBytes?: number;
  /**
   * How long a request that finds the buffer full waits for room before it is refused (429); 0:
   * refused at once. Requests wait in arrival order, at most a quarter of `maxBufferedSpans`
   * spans of them at once (a larger one alone) and 32 MiB of their attribute bytes (see
   * `WaitingRequests`); none overtakes those waiting. `assembly.admissionWaitMs`.
   * @defaultValue 0
   */
  admissionWaitMs?: number;
  /**
   * Spans kept of one trace; past it the trace's further spans are refused (`accept` says how
   * many) and its scoring is told so in `notes` (a `trace_truncated` diagnostic).
   * `assembly.maxSpansPerTrace`.
   */
  maxSpansPerTrace: number;
  /**
   * The share of `maxBufferedSpans` one service may hold while another service's spans are held
   * too; past it that service's batches are refused (429) and the others' still accepted (1: no
   * per-service limit). `assembly.maxServiceShare`.
   */
  maxServiceShare: number;
  /**
   * Scored traces whose delivery (the export of their evaluation spans) may wait for a retry at
   * once; a trace scored past it is not delivered, and ends failed with the reason (its results
   * are stored). Not a setting: @defaultValue `MAX_WAITING_DELIVERIES`
   */
  maxWaitingDeliveries?: number;
  /** Tries per trace for retryable failures (see `classifyFailure`), with backoff: `worker.attempts`. */
  maxAttempts: number;
  /** First retry delay; doubles each time: `worker.backoffMs`. */
  backoffMs: number;
  /** Score a trace again when spans arrive after it was scored; its evaluation spans are replaced. @defaultValue false */
  rescoreLateSpans?: boolean;
  /** How long a scored trace is remembered, to recognize late spans. @defaultValue policy.maxWaitMs */
  lateWindowMs?: number;
  /** Called for spans that arrive after their trace was scored. */
  onLateSpans?: (traceId: string, count: number) => void;
  /** Called when a trace could not be scored (after retries, or at once for non-retryable errors). */
  onFailed?: (traceId: string, error: unknown) => void;
  /**
   * At `close`, how long deliveries under way are waited for once scoring has finished; those
   * still under way then end failed. Not a setting: @defaultValue `DELIVERY_GRACE_MS`
   */
  deliveryGraceMs?: number;
  /** The clock in milliseconds. @defaultValue Date.now */
  now?: () => number;
}
