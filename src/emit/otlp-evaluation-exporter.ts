import { SpanKind, TraceFlags, type HrTime, type Link } from '@opentelemetry/api';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { OTLPTraceExporter as OTLPJsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPExporterBase } from '@opentelemetry/otlp-exporter-base';
import {
  convertLegacyHttpOptions,
  createOtlpHttpExportDelegate,
} from '@opentelemetry/otlp-exporter-base/node-http';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import type { ReadableSpan, TimedEvent } from '@opentelemetry/sdk-trace-base';
import { SpanscoreError } from '../errors/spanscore-error.js';
import { evaluationProtocol } from './evaluation-protocol.js';
import { encodeEvaluationSpans } from './encode-evaluation-spans.js';
import type { EvaluationSpan } from './score-to-span.js';
import { SPANSCORE_VERSION } from '../version.js';

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
  /**
   * The OTLP/HTTP encoding. @defaultValue `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL`, else
   * `OTEL_EXPORTER_OTLP_PROTOCOL`, else `http/protobuf` (the OTLP default)
   */
  protocol?: 'http/protobuf' | 'http/json';
}

/** Exports evaluation spans; `export` rejects with `SS_EXPORT_FAILED` so a job can retry. */
export interface EvaluationExporter {
  export(spans: readonly EvaluationSpan[]): Promise<void>;
  shutdown(): Promise<void>;
}

const SCOPE = { name: 'spanscore', version: SPANSCORE_VERSION };

/**
 * Creates the evaluation-span exporter on the OpenTelemetry OTLP/HTTP exporters (protobuf by
 * default, JSON on request; with the exporter's own retries for 429/5xx). Evaluation spans keep
 * their derived span ids and parents, so they land inside the evaluated trace. `grpc` is not
 * supported: an OTel Collector in front translates.
 */
export function createEvaluationExporter(
  options: EvaluationExporterOptions = {},
): EvaluationExporter {
  const protocol = evaluationProtocol(options.protocol);
  const config = {
    ...(options.url && { url: options.url }),
    ...(options.headers && { headers: options.headers }),
    timeoutMillis: options.timeoutMillis ?? 10_000,
  };
  const serviceName = options.serviceName ?? 'spanscore';
  let send: (spans: readonly EvaluationSpan[]) => Promise<ExportResult>;
  let shutdown: () => Promise<void>;
  if (protocol === 'http/json') {
    const exporter = new OTLPJsonTraceExporter(config);
    const resource = resourceFromAttributes({ 'service.name': serviceName });
    send = spans =>
      new Promise(resolve =>
        exporter.export(
          spans.map(s => toReadableSpan(s, resource)),
          resolve,
        ),
      );
    shutdown = () => exporter.shutdown();
  } else {
    const exporter = protobufExporter(config, serviceName);
    send = spans => new Promise(resolve => exporter.export(spans, resolve));
    shutdown = () => exporter.shutdown();
  }
  return {
    async export(spans) {
      if (spans.length === 0) return;
      const result = await send(spans);
      if (result.code !== ExportResultCode.SUCCESS) {
        throw new SpanscoreError(
          'SS_EXPORT_FAILED',
          `exporting ${spans.length} evaluation span(s) failed: ${result.error?.message ?? 'unknown error'}`,
          { cause: result.error },
        );
      }
    },
    shutdown,
  };
}

/**
 * The OTLP/HTTP protobuf exporter of the OpenTelemetry SDK (its transport: endpoint and headers
 * from the options or the standard environment variables, retries of 429/5xx with backoff,
 * timeouts, compression), with our encoder in place of its `ReadableSpan` serializer: the SDK's
 * `OTLPTraceExporter` is this same delegate with `ProtobufTraceSerializer`.
 */
function protobufExporter(
  config: { url?: string; headers?: Record<string, string>; timeoutMillis: number },
  serviceName: string,
): OTLPExporterBase<readonly EvaluationSpan[]> {
  const origin = { serviceName, scope: SCOPE };
  return new OTLPExporterBase(
    createOtlpHttpExportDelegate(
      convertLegacyHttpOptions(config, 'TRACES', 'v1/traces', {
        'Content-Type': 'application/x-protobuf',
      }),
      {
        serializeRequest: (spans: readonly EvaluationSpan[]) =>
          encodeEvaluationSpans(spans, origin),
        deserializeResponse: data => ProtobufTraceSerializer.deserializeResponse(data),
      },
      'otlp_http_span_exporter',
      { name: 'span', countItems: spans => spans.length },
      undefined,
    ),
  );
}

/**
 * An evaluation span as the SDK's `ReadableSpan`, for the JSON exporter (and for tests comparing
 * the protobuf encoder with the SDK's serializer).
 */
export function toReadableSpan(
  span: EvaluationSpan,
  resource: ReadableSpan['resource'],
): ReadableSpan {
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
    links: [
      link,
      ...span.turnLinks.map((t): Link => ({
        context: { traceId: t.traceId, spanId: t.spanId, traceFlags: TraceFlags.SAMPLED },
        attributes: { 'link.type': 'session_turn', 'spanscore.session.turn': t.turn },
      })),
    ],
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
