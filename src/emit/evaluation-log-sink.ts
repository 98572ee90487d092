import { ROOT_CONTEXT, trace, TraceFlags } from '@opentelemetry/api';
import { SeverityNumber } from '@opentelemetry/api-logs';
import { OTLPLogExporter } from '@opentelemetry/exporter-logs-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchLogRecordProcessor, LoggerProvider } from '@opentelemetry/sdk-logs';
import type { ResultSink } from '../score/result-sink.js';
import { EVALUATION_EVENT } from '../semconv/attributes.js';
import { evaluationSpansOf } from './evaluation-span-sink.js';

/** Options of {@link createEvaluationLogSink}. */
export interface EvaluationLogSinkOptions {
  /** OTLP/HTTP logs endpoint; default: `OTEL_EXPORTER_OTLP_LOGS_ENDPOINT`, else `OTEL_EXPORTER_OTLP_ENDPOINT` + `/v1/logs`. */
  url?: string;
  headers?: Record<string, string>;
}

/** The sink, and what flushes and stops its exporter. */
export interface EvaluationLogSink extends ResultSink {
  shutdown(): Promise<void>;
}

/**
 * Also emits each result as an OTLP log record: the `gen_ai.evaluation.result` event the GenAI
 * semantic conventions move towards, with the evaluation span's attributes and the evaluated
 * span's trace and span id, so a logs backend joins it to the trace. Off by default
 * (`export.logs`). Records are batched and exported in the background: a logs backend that is down
 * loses records (the exporter retries 429/5xx), it never holds up scoring; the evaluation spans
 * remain the record that is retried until written.
 */
export function createEvaluationLogSink(options: EvaluationLogSinkOptions = {}): EvaluationLogSink {
  const provider = new LoggerProvider({
    resource: resourceFromAttributes({ 'service.name': 'spanscore' }),
    processors: [
      new BatchLogRecordProcessor({
        exporter: new OTLPLogExporter({
          ...(options.url && { url: options.url }),
          ...(options.headers && { headers: options.headers }),
        }),
        scheduledDelayMillis: 1000,
      }),
    ],
  });
  const logger = provider.getLogger('spanscore');
  return {
    name: 'evaluation-logs',
    write(run) {
      for (const span of evaluationSpansOf(run)) {
        const context = trace.setSpanContext(ROOT_CONTEXT, {
          traceId: span.traceId,
          spanId: span.parentSpanId,
          traceFlags: TraceFlags.SAMPLED,
        });
        logger.emit({
          eventName: EVALUATION_EVENT,
          severityNumber: span.statusCode === 2 ? SeverityNumber.WARN : SeverityNumber.INFO,
          severityText: span.statusCode === 2 ? 'WARN' : 'INFO',
          timestamp: Number(span.endTimeUnixNano / 1_000_000n),
          attributes: { ...span.attributes, ...span.event.attributes },
          context,
        });
      }
    },
    shutdown: () => provider.shutdown(),
  };
}
