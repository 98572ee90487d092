import { Counter, Histogram, Registry, type RegistryContentType } from 'prom-client';
import { REFUSAL_REASONS, type RefusalReason } from './refusal-tally.js';

/** The receiver's Prometheus metrics, in their own registry. */
export interface ReceiverMetrics {
  registry: Registry<RegistryContentType>;
  spansReceived: Counter;
  spansRejected: Counter;
  spansRefused: Counter<'reason'>;
  requestsRejected: Counter<'reason'>;
  requestsRefused: Counter<'reason'>;
  requestsEmpty: Counter<'reason'>;
  requestDuration: Histogram<'status'>;
  bytesInflated: Counter;
  logRecordsReceived: Counter;
  logRecordsDropped: Counter<'reason'>;
  requestsDropped: Counter<'signal'>;
}

/** Creates the receiver metrics (prefixed `spanscore_`) in `registry` (a new one by default). */
export function createReceiverMetrics(
  registry: Registry<RegistryContentType> = new Registry(),
): ReceiverMetrics {
  return {
    registry,
    spansReceived: new Counter({
      name: 'spanscore_spans_received_total',
      help: 'Spans accepted by the OTLP receiver',
      registers: [registry],
    }),
    spansRejected: new Counter({
      name: 'spanscore_spans_rejected_total',
      help: 'Spans refused as invalid (reported in partialSuccess)',
      registers: [registry],
    }),
    spansRefused: new Counter({
      name: 'spanscore_spans_backpressure_total',
      help: 'Spans not kept for the exporter to send again: answered 429 (saturated) or 503 (unavailable), past their trace span limit (trace_too_large), or let go while waiting for room when their sender closed its connection (sender_gone)',
      labelNames: ['reason'],
      registers: [registry],
    }),
    requestsRejected: new Counter({
      name: 'spanscore_requests_rejected_total',
      help: 'OTLP requests refused whole: invalid (400), past a request limit (too_large, 413), or refused undecoded while the buffer is full (saturated, 429) or the receiver stops (unavailable, 503)',
      labelNames: ['reason'],
      registers: [registry],
    }),
    requestsRefused: refusedCounter(registry),
    requestsEmpty: new Counter({
      name: 'spanscore_requests_empty_total',
      help: 'OTLP requests answered 200 that held nothing to score (not_otlp: JSON with no resourceSpans)',
      labelNames: ['reason'],
      registers: [registry],
    }),
    logRecordsReceived: new Counter({
      name: 'spanscore_log_records_received_total',
      help: 'GenAI log records (OTLP logs: gen_ai.* events with a trace id) accepted and kept with their trace; in the span buffer and its backpressure metrics each counts as a span',
      registers: [registry],
    }),
    logRecordsDropped: new Counter({
      name: 'spanscore_log_records_dropped_total',
      help: 'OTLP log records answered 200 and not kept: not_gen_ai (no gen_ai.* event name), evaluation (gen_ai.evaluation.* events), no_trace_id',
      labelNames: ['reason'],
      registers: [registry],
    }),
    requestsDropped: new Counter({
      name: 'spanscore_requests_dropped_total',
      help: 'OTLP requests of a signal spanscore does not read (metrics), answered 200 and dropped so that an app sending every signal to one endpoint logs no export errors',
      labelNames: ['signal'],
      registers: [registry],
    }),
    bytesInflated: new Counter({
      name: 'spanscore_request_bytes_inflated_total',
      help: 'Bytes that gzip request bodies inflated to; a body refused past maxBodyBytes counts the limit, where inflating stopped',
      registers: [registry],
    }),
    requestDuration: new Histogram({
      name: 'spanscore_export_request_duration_seconds',
      help: 'Time to handle one OTLP export request',
      labelNames: ['status'],
      buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5],
      registers: [registry],
    }),
  };
}

/**
 * Requests refused whole, by the reasons the results page counts them under (`RefusalReason`):
 * one count for each refusal the page's tally records, so a dashboard and the page agree. Every
 * reason starts at 0, so that `rate()` and alerts see a series before the first refusal.
 */
function refusedCounter(registry: Registry<RegistryContentType>): Counter<'reason'> {
  const counter = new Counter({
    name: 'spanscore_requests_refused_total',
    help: 'OTLP requests refused whole, by the reason the results page shows: wrong_path (404), token (401/403), content_type (415), size (413), decode (400), rate (429 + Retry-After), unavailable (503 + Retry-After)',
    labelNames: ['reason'],
    registers: [registry],
  });
  for (const reason of REFUSAL_REASONS)
    counter.inc({ reason } satisfies { reason: RefusalReason }, 0);
  return counter;
}
