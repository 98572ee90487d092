import { SpanKind, TraceFlags, type HrTime, type Link } from '@opentelemetry/api';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import type { ReadableSpan, TimedEvent } from '@opentelemetry/sdk-trace-base';
import { SpanscoreError } from '../errors/spanscore-error.js';
import type { EvaluationSpan } from './score-to-span.js';

/** Where evaluation spans go. */
export interface EvaluationExporterOptions {
  /**
   * The OTLP/HTTP traces endpoint. When absent the exporter reads the standard
   * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` / `OTEL_EXPORTER_OTLP_ENDPOINT` variables (and
   * `OTEL_EXPORTER_OTLP_HEADERS`), as every OpenTelemetry user expects.
   */
  url?: string;
  headers?: Record<string, string>;
  /** @defaultValue 10000 */
  timeoutMillis?: number;
  /** `service.name` of the evaluation spans' resource. @defaultValue 'spanscore' */
  serviceName?: string;
}

/** Exports evaluation spans; `export` rejects with `SS_EXPORT_FAILED` so a job can retry. */
export interface EvaluationExporter {
  export(spans: readonly EvaluationSpan[]): Promise<void>;
  shutdown(): Promise<void>;
}

const SCOPE = { name: 'spanscore', version: '0.1.0' };

/**
 * Creates the evaluation-span exporter on `@opentelemetry/exporter-trace-otlp-http` (OTLP/JSON
 * over HTTP, with the exporter's own retries for 429/5xx). Evaluation spans keep their derived
 * span ids and parents, so they land inside the evaluated trace.
 */
export function createEvaluationExporter(
  options: EvaluationExporterOptions = {},
): EvaluationExporter {
  const exporter = new OTLPTraceExporter({
    ...(options.url && { url: options.url }),
    ...(options.headers && { headers: options.headers }),
    timeoutMillis: options.timeoutMillis ?? 10_000,
  });
  const resource = resourceFromAttributes({ 'service.name': options.serviceName ?? 'spanscore' });
  return {
    async export(spans) {
      if (spans.length === 0) return;
      const result = await new Promise<ExportResult>(resolve =>
        exporter.export(
          spans.map(s => toReadableSpan(s, resource)),
          resolve,
        ),
      );
      if (result.code !== ExportResultCode.SUCCESS) {
        throw new SpanscoreError(
          'SS_EXPORT_FAILED',
          `exporting ${spans.length} evaluation span(s) failed: ${result.error?.message ?? 'unknown error'}`,
          { cause: result.error },
        );
      }
    },
    shutdown: () => exporter.shutdown(),
  };
}

function toReadableSpan(span: EvaluationSpan, resource: ReadableSpan['resource']): ReadableSpan {
  const link: Link = {
    context: {
      traceId: span.link.traceId,
      spanId: span.link.spanId,
      traceFlags: TraceFlags.SAMPLED,
    },
    attributes: { 'link.type': 'evaluates' },
  };
  const event: TimedEvent = {
    name: span.event.name,
    time: hrTime(span.event.timeUnixNano),
    attributes: span.event.attributes,
  };
  const start = hrTime(span.startTimeUnixNano);
  const end = hrTime(span.endTimeUnixNano);
  return {
    name: span.name,
    kind: SpanKind.INTERNAL,
    spanContext: () => ({
      traceId: span.traceId,
      spanId: span.spanId,
      traceFlags: TraceFlags.SAMPLED,
    }),
    parentSpanContext: span.parentSpanId
      ? {
          traceId: span.traceId,
          spanId: span.parentSpanId,
          traceFlags: TraceFlags.SAMPLED,
          isRemote: true,
        }
      : undefined,
    startTime: start,
    endTime: end,
    duration: hrTime(span.endTimeUnixNano - span.startTimeUnixNano),
    status: span.statusCode === 2 ? { code: 2, message: span.statusMessage } : { code: 0 },
    attributes: span.attributes,
    links: [link],
    events: [event],
    ended: true,
    resource,
    instrumentationScope: SCOPE,
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  };
}

function hrTime(nanos: bigint): HrTime {
  return [Number(nanos / 1_000_000_000n), Number(nanos % 1_000_000_000n)];
}
