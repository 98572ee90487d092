import { SpanKind, TraceFlags, type HrTime, type Link } from '@opentelemetry/api';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { OTLPExporterBase } from '@opentelemetry/otlp-exporter-base';
import {
  convertLegacyHttpOptions,
  createOtlpHttpExportDelegate,
} from '@opentelemetry/otlp-exporter-base/node-http';
import {
  JsonTraceSerializer,
  ProtobufTraceSerializer,
  type IExportTraceServiceResponse,
} from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import type { ReadableSpan, TimedEvent } from '@opentelemetry/sdk-trace-base';
import { SpanscoreError } from '../errors/spanscore-error.js';
import { evaluationProtocol } from './evaluation-protocol.js';
import { encodeEvaluationSpans } from './encode-evaluation-spans.js';
import { requestsWithinBytes, type EncodedRequest } from './requests-within-bytes.js';
import { DEFAULT_BATCH_BYTES } from '../config/export-config-schema.js';
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
  /**
   * Bytes of one request's body at most (`export.maxBatchBytes`): an `export` whose encoding is
   * larger goes in several requests (`requestsWithinBytes`); a span larger alone goes whole.
   * @defaultValue `DEFAULT_BATCH_BYTES` (4 MiB less 64 KiB)
   */
  maxRequestBytes?: number;
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
  const maxBytes = options.maxRequestBytes ?? DEFAULT_BATCH_BYTES;
  let encode: (spans: readonly EvaluationSpan[]) => Uint8Array;
  let exporter: OTLPExporterBase<EncodedRequest>;
  if (protocol === 'http/json') {
    const resource = resourceFromAttributes({ 'service.name': serviceName });
    encode = spans =>
      JsonTraceSerializer.serializeRequest(spans.map(s => toReadableSpan(s, resource)))!;
    exporter = requestExporter(config, 'application/json', data =>
      JsonTraceSerializer.deserializeResponse(data),
    );
  } else {
    const origin = { serviceName, scope: SCOPE };
    encode = spans => encodeEvaluationSpans(spans, origin);
    exporter = requestExporter(config, 'application/x-protobuf', data =>
      ProtobufTraceSerializer.deserializeResponse(data),
    );
  }
  const send = async (request: EncodedRequest): Promise<void> => {
    const result = await new Promise<ExportResult>(resolve => exporter.export(request, resolve));
    if (result.code !== ExportResultCode.SUCCESS) {
      throw new SpanscoreError(
        'SS_EXPORT_FAILED',
        `exporting ${request.spans} evaluation span(s) failed: ${result.error?.message ?? 'unknown error'}`,
        { cause: result.error },
      );
    }
  };
  return {
    async export(spans) {
      if (spans.length === 0) return;
      const requests = requestsWithinBytes(spans, encode, maxBytes);
      if (requests.length === 1) return send(requests[0]!);
      await Promise.all(requests.map(send));
    },
    shutdown: () => exporter.shutdown(),
  };
}

/**
 * The OTLP/HTTP transport of the OpenTelemetry SDK (endpoint and headers from the options or the
 * standard environment variables, retries of 429/5xx with backoff, timeouts, compression) for
 * requests encoded already: the SDK's `OTLPTraceExporter`s are this same delegate with the
 * `ReadableSpan` serializer of their encoding, whose work `encode` does here, so that a request's
 * size is known before it is sent.
 */
function requestExporter(
  config: { url?: string; headers?: Record<string, string>; timeoutMillis: number },
  contentType: string,
  deserializeResponse: (data: Uint8Array) => IExportTraceServiceResponse,
): OTLPExporterBase<EncodedRequest> {
  return new OTLPExporterBase(
    createOtlpHttpExportDelegate(
      convertLegacyHttpOptions(config, 'TRACES', 'v1/traces', { 'Content-Type': contentType }),
      { serializeRequest: request => request.bytes, deserializeResponse },
      'otlp_http_span_exporter',
      { name: 'span', countItems: request => request.spans },
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
