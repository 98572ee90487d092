import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { isSpanscoreError, type SpanscoreError } from '../errors/spanscore-error.js';
import { rateLimitedLog } from '../log/rate-limited-log.js';
import { bearerAccess } from './bearer-access.js';
import { metricsExposition, type MetricsExposition } from './metrics-exposition.js';
import { otlpPathHint } from './otlp-path-hint.js';
import {
  checkJsonItems,
  DEFAULT_DECODE_LIMITS,
  DEFAULT_MAX_BODY_BYTES,
  type DecodeLimits,
} from './decode-limits.js';
import { encodeExportResponse, encodeStatus } from './encode-otlp-response.js';
import type { ReceiverMetrics } from './receiver-metrics.js';
import type { RefusalReason } from './refusal-tally.js';
import { LOGS, TRACES, type Signal } from './otlp-signals.js';
import type { DecodedRequest } from './span-digest.js';
import { senderGone } from './sender-gone.js';
import type { PartlyRefused, SpanSink } from './span-sink.js';
import { sendAccessRefusal } from './send-access-refusal.js';
import { parseWellFormedJson } from './parse-well-formed-json.js';

const gunzipAsync = promisify(gunzip);

/** gRPC status codes, as `google.rpc.Status.code` expects. */
const GRPC = {
  CANCELLED: 1,
  INVALID_ARGUMENT: 3,
  NOT_FOUND: 5,
  RESOURCE_EXHAUSTED: 8,
  UNAVAILABLE: 14,
  UNAUTHENTICATED: 16,
  PERMISSION_DENIED: 7,
  INTERNAL: 13,
} as const;
const PROTOBUF = 'application/x-protobuf';
const JSON_TYPE = 'application/json';

/** Options of {@link createOtlpHttpReceiver}. */
export interface OtlpHttpReceiverOptions {
  /** Where accepted spans go. */
  sink: SpanSink;
  /**
   * Largest request body, compressed and after decompression (the OTLP spec requires both);
   * larger gets 413. @defaultValue 64 MiB (the spec's recommendation)
   */
  maxBodyBytes?: number;
  /**
   * Bearer tokens by scope (see `bearerAccess`): with any ingest token, `POST /v1/traces` needs
   * one (401 without or with an unknown token, 403 with a read-only one). @defaultValue none
   */
  tokens?: { ingest: readonly string[]; read: readonly string[] };
  /** `GET /readyz` answers 200 when this resolves true, 503 otherwise (e.g. Redis unreachable). */
  ready?: () => Promise<boolean>;
  /** Prometheus metrics; `GET /metrics` serves their registry (or {@link OtlpHttpReceiverOptions.exposition}). */
  metrics?: ReceiverMetrics;
  /**
   * What `GET /metrics` answers, in the format `accept` asks, when the service's metrics are more
   * than `metrics`' registry (the embedded driver's scoring thread keeps its own).
   * @defaultValue `metrics`' registry (`metricsExposition`)
   */
  exposition?: (accept: string | undefined) => Promise<MetricsExposition>;
  /**
   * What one request may cost to decode (spans, nested items, rejected spans reported); past a
   * limit the request is refused whole with 413. @defaultValue `DEFAULT_DECODE_LIMITS`
   */
  limits?: Readonly<DecodeLimits>;
  /** Fastify's logger option. @defaultValue false */
  logger?: boolean;
  /**
   * Where the receiver says what senders get wrong (a body that is JSON but no OTLP export, a
   * request past a limit): at most one line per kind a minute.
   */
  log?: (line: string) => void;
  /**
   * Hears each request refused whole (4xx, 429, 503), with its reason and the message its answer
   * carries (which quotes the request: untrusted text), e.g. for a `RefusalTally`.
   */
  onRefused?: (reason: RefusalReason, message: string) => void;
}

/**
 * The OTLP/HTTP receiver: `POST /v1/traces` and `POST /v1/logs` with `application/x-protobuf` or
 * `application/json` bodies, optionally gzip-compressed, answered in the request's content type.
 * Logs: the GenAI events (`gen_ai.*` records with a trace id) are kept with their trace, as
 * carrier spans; every other record is answered 200, dropped and counted. `POST /v1/metrics` is
 * accepted and dropped (counted), so an app sending all signals to one endpoint sees no errors.
 * Both signals share tokens, limits, backpressure and error answers:
 *
 * - 200 with an empty `ExportTraceServiceResponse`, or `partialSuccess` (`rejectedSpans`, and a
 *   message naming the first bad span's field) when some spans were refused; the rest are kept.
 * - 400 for a body that is not an OTLP request at all, 401 without an ingest token (when any is
 *   set) and 403 with a read-only one, 413 above
 *   `maxBodyBytes` (before or after decompression), 415 for another content type or encoding.
 * - 429 (buffer full) or 503 (store unavailable) with `Retry-After`, so exporters retry.
 * - `GET /healthz` (the process is up), `GET /readyz` (see `ready`), `GET /metrics` (Prometheus).
 */
export function createOtlpHttpReceiver(options: OtlpHttpReceiverOptions): FastifyInstance {
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const limits = options.limits ?? DEFAULT_DECODE_LIMITS;
  const warn = rateLimitedLog(options.log ?? (() => {}));

  /** 429 (buffer full) or 503 (store down) with Retry-After: the exporter keeps and resends. */
  /** Counts a request refused whole (`spanscore_requests_refused_total`) and tells `onRefused`. */
  const refused = (reason: RefusalReason, message: string): void => {
    options.metrics?.requestsRefused.inc({ reason });
    options.onRefused?.(reason, message);
  };
  const refuse = (
    reply: FastifyReply,
    error: SpanscoreError,
    format: 'json' | 'protobuf',
    spans: number,
  ): number => {
    const code = error.code === 'SS_INGEST_SATURATED' ? 429 : 503;
    refused(code === 429 ? 'rate' : 'unavailable', error.message);
    reply.header('retry-after', String(Math.max(1, Math.ceil(error.retryAfterSeconds ?? 1))));
    if (spans > 0)
      options.metrics?.spansRefused.inc(
        { reason: code === 429 ? 'saturated' : 'unavailable' },
        spans,
      );
    return send(
      reply,
      code,
      encodeStatus(
        code === 429 ? GRPC.RESOURCE_EXHAUSTED : GRPC.UNAVAILABLE,
        error.message,
        format,
      ),
      format,
    );
  };
  /** Refuses the request whole with `status`, telling `onRefused` why. */
  const refuseWith = (
    reply: FastifyReply,
    status: number,
    reason: RefusalReason,
    grpcCode: number,
    message: string,
    format: 'json' | 'protobuf',
  ): number => {
    refused(reason, message);
    return send(reply, status, encodeStatus(grpcCode, message, format), format);
  };
  const authorized = bearerAccess(options.tokens ?? { ingest: [], read: [] }, 'ingest');
  const app = Fastify({ logger: options.logger ?? false, bodyLimit: maxBodyBytes });

  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    [PROTOBUF, JSON_TYPE],
    { parseAs: 'buffer', bodyLimit: maxBodyBytes },
    (_req, body, done) => done(null, body),
  );

  app.setErrorHandler((error: Error & { statusCode?: number; code?: string }, request, reply) => {
    const format = formatOf(request);
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      return refuseWith(
        reply,
        413,
        'size',
        GRPC.RESOURCE_EXHAUSTED,
        `request body exceeds ${maxBodyBytes} bytes`,
        format,
      );
    }
    if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' || error.statusCode === 415) {
      const type = request.headers['content-type'] ?? '(none)';
      return refuseWith(
        reply,
        415,
        'content_type',
        GRPC.INVALID_ARGUMENT,
        `unsupported content type ${type}; send ${PROTOBUF} or ${JSON_TYPE}`,
        'json',
      );
    }
    if (error.statusCode && error.statusCode < 500) {
      return refuseWith(
        reply,
        error.statusCode,
        'decode',
        GRPC.INVALID_ARGUMENT,
        error.message,
        format,
      );
    }
    request.log.error(error);
    return send(reply, 500, encodeStatus(GRPC.INTERNAL, 'internal error', format), format);
  });

  for (const signal of [TRACES, LOGS])
    app.post(signal.path, async (request, reply) => {
      const format = formatOf(request);
      const started = process.hrtime.bigint();
      const status = await handleExport(request, reply, format, signal);
      options.metrics?.requestDuration.observe(
        { status: String(status) },
        Number(process.hrtime.bigint() - started) / 1e9,
      );
      return reply;
    });

  // A request no route takes: a misconfigured exporter is told (and logged, once a minute per
  // mistake) what to set; the service's own root sends a browser to the results page.
  app.get('/', (_request, reply) => reply.redirect('/ui/'));
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0]!;
    const hint = otlpPathHint(request.method, path, request.headers['content-type']);
    if (hint)
      warn(
        `path:${hint.key}`,
        () =>
          `spanscore: ${request.method} ${path} is not an OTLP endpoint of spanscore: ${hint.fix}`,
      );
    const format = formatOf(request);
    const message = hint
      ? `${request.method} ${path} is not an OTLP endpoint of spanscore: ${hint.fix}`
      : `no route ${request.method} ${path}: spanscore receives OTLP on POST /v1/traces and /v1/logs; results at /ui/ and /api/v1`;
    // An export gone astray (a POST, or gRPC) is a refusal the page shows; a browser's or a
    // crawler's GET is not.
    if (hint || request.method === 'POST') refused('wrong_path', message);
    return send(reply, 404, encodeStatus(GRPC.NOT_FOUND, message, format), format);
  });

  // Metrics are not read: accepted (with the same token check) and dropped, so an app that sends
  // every signal to one endpoint (OTEL_EXPORTER_OTLP_ENDPOINT) logs no export errors.
  app.post('/v1/metrics', (request, reply) => {
    const format = formatOf(request);
    const access = authorized(request.headers.authorization);
    if (!access.allowed) return deny(reply, access, format);
    options.metrics?.requestsDropped.inc({ signal: 'metrics' });
    return send(reply, 200, Buffer.from(format === 'json' ? '{}' : ''), format);
  });

  function deny(
    reply: FastifyReply,
    access: { status: 401 | 403; message: string },
    format: 'json' | 'protobuf',
  ): number {
    if (access.status === 401) reply.header('www-authenticate', 'Bearer');
    return refuseWith(
      reply,
      access.status,
      'token',
      access.status === 401 ? GRPC.UNAUTHENTICATED : GRPC.PERMISSION_DENIED,
      access.message,
      format,
    );
  }

  async function handleExport(
    request: FastifyRequest,
    reply: FastifyReply,
    format: 'json' | 'protobuf',
    signal: Signal,
  ): Promise<number> {
    const access = authorized(request.headers.authorization);
    if (!access.allowed) return deny(reply, access, format);
    // A full buffer refuses before anything is decoded: retries against it cost nothing.
    const refusal = options.sink.refusesNow?.();
    if (refusal) {
      options.metrics?.requestsRejected.inc({
        reason: refusal.code === 'SS_INGEST_SATURATED' ? 'saturated' : 'unavailable',
      });
      return refuse(reply, refusal, format, 0);
    }
    let body = request.body as Buffer;
    const encoding = (request.headers['content-encoding'] ?? 'identity').toLowerCase();
    if (encoding === 'gzip') {
      try {
        body = await gunzipAsync(body, { maxOutputLength: maxBodyBytes });
        options.metrics?.bytesInflated.inc(body.length);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
          options.metrics?.bytesInflated.inc(maxBodyBytes);
          return refuseWith(
            reply,
            413,
            'size',
            GRPC.RESOURCE_EXHAUSTED,
            `decompressed body exceeds ${maxBodyBytes} bytes`,
            format,
          );
        }
        return refuseWith(
          reply,
          400,
          'decode',
          GRPC.INVALID_ARGUMENT,
          `invalid gzip body: ${(error as Error).message}`,
          format,
        );
      }
    } else if (encoding !== 'identity') {
      return refuseWith(
        reply,
        415,
        'content_type',
        GRPC.INVALID_ARGUMENT,
        `unsupported content encoding ${encoding}; send gzip or none`,
        format,
      );
    }

    let decoded: DecodedRequest;
    try {
      if (format === 'protobuf') decoded = signal.decodeProtobuf(body, limits);
      else {
        checkJsonItems(body, limits);
        const parsed = parseWellFormedJson(body.toString('utf8'));
        decoded = signal.decodeJson(parsed, limits);
        if (signal.isNotExport(parsed)) {
          options.metrics?.requestsEmpty.inc({ reason: 'not_otlp' });
          const keys = Object.keys(parsed).slice(0, 5).join(', ');
          warn(
            `not_otlp ${signal.path}`,
            () =>
              `spanscore: POST ${signal.path}: a JSON body with no ${signal.field} (it has ${keys || 'no keys'}) was read as an empty export (200): is the sender sending OTLP ${signal.name}?`,
          );
        }
      }
    } catch (error) {
      const tooLarge = isSpanscoreError(error) && error.code === 'SS_TRACE_INPUT_TOO_LARGE';
      const message =
        error instanceof SyntaxError
          ? `invalid JSON: ${error.message}`
          : isSpanscoreError(error) || error instanceof RangeError
            ? error.message
            : undefined;
      if (message === undefined) throw error;
      options.metrics?.requestsRejected.inc({ reason: tooLarge ? 'too_large' : 'invalid' });
      if (tooLarge)
        warn(
          `too_large ${signal.path}`,
          () => `spanscore: POST ${signal.path}: refused (413): ${message}`,
        );
      return refuseWith(
        reply,
        tooLarge ? 413 : 400,
        tooLarge ? 'size' : 'decode',
        tooLarge ? GRPC.RESOURCE_EXHAUSTED : GRPC.INVALID_ARGUMENT,
        message,
        format,
      );
    }

    // Decoded: the body is let go, so that a request the sink holds while its buffer is full
    // keeps only what it copied of it (see `SpanSink.accept`).
    request.body = undefined;
    let partly: PartlyRefused | void = undefined;
    if (decoded.spans.length > 0) {
      // A sink that may hold the request for room is told if its sender leaves meanwhile.
      const gone = options.sink.stopWaiting ? senderGone(reply) : undefined;
      try {
        partly = await options.sink.accept(decoded.spans, gone?.signal);
      } catch (error) {
        // Only the rejection the sender's leaving caused: a request added in slices may have
        // stored some spans, or failed otherwise, before its sender left.
        if (gone && error === gone.signal.reason) {
          options.metrics?.spansRefused.inc({ reason: 'sender_gone' }, decoded.spans.length);
          const why = (gone.signal.reason as Error).message;
          return send(reply, 499, encodeStatus(GRPC.CANCELLED, why, format), format);
        }
        if (isBackpressure(error)) return refuse(reply, error, format, decoded.spans.length);
        throw error;
      } finally {
        gone?.stop();
      }
    }
    const refused = partly ? partly.refusedSpans : 0;
    if (options.metrics) signal.count(options.metrics, decoded, refused);
    if (partly) options.metrics?.spansRefused.inc({ reason: 'trace_too_large' }, refused);
    const messages = [
      ...(decoded.rejectedCount > 0 ? [rejectionMessage(decoded, signal.noun)] : []),
      ...(partly ? [`${partly.refusedSpans} ${signal.noun}(s) not kept: ${partly.reason}`] : []),
    ];
    const partial =
      messages.length > 0
        ? { rejected: decoded.rejectedCount + refused, errorMessage: messages.join('; ') }
        : undefined;
    return send(reply, 200, encodeExportResponse(partial, format, signal.name), format);
  }

  app.get('/healthz', (_request, reply) => reply.send({ status: 'ok' }));
  app.get('/readyz', async (_request, reply) => {
    const ok = options.ready ? await options.ready().catch(() => false) : true;
    return reply.code(ok ? 200 : 503).send({ status: ok ? 'ready' : 'not ready' });
  });
  // Metrics carry service, tool and scorer names and trace ids (exemplars): with read tokens, a
  // scrape needs one, as the API does (Prometheus sends it with `authorization: credentials`).
  const readable = bearerAccess(options.tokens ?? { ingest: [], read: [] }, 'read');
  app.get('/metrics', async (request, reply) => {
    if (!options.metrics) return reply.code(404).send({ status: 'metrics disabled' });
    const access = readable(request.headers.authorization);
    if (!access.allowed) return sendAccessRefusal(reply, access);
    const { contentType, body } = options.exposition
      ? await options.exposition(request.headers.accept)
      : await metricsExposition(options.metrics.registry, request.headers.accept);
    return reply.type(contentType).send(body);
  });
  return app;
}

/**
 * `partialSuccess.errorMessage`: how many spans were rejected, and where and why the first one
 * was, so the message stays small however many there are.
 */
function rejectionMessage(decoded: DecodedRequest, noun: string): string {
  const first = decoded.rejected[0];
  return `${decoded.rejectedCount} ${noun}(s) rejected${first ? `; first: ${first.path}: ${first.reason}` : ''}`;
}

function formatOf(request: FastifyRequest): 'json' | 'protobuf' {
  return (request.headers['content-type'] ?? '').toLowerCase().startsWith(JSON_TYPE)
    ? 'json'
    : 'protobuf';
}

function send(
  reply: FastifyReply,
  status: number,
  body: Buffer,
  format: 'json' | 'protobuf',
): number {
  void reply
    .code(status)
    .type(format === 'json' ? JSON_TYPE : PROTOBUF)
    .send(body);
  return status;
}

/** A refusal the sender should retry: the buffer is full, or the store is unavailable. */
function isBackpressure(error: unknown): error is SpanscoreError {
  return (
    isSpanscoreError(error) &&
    (error.code === 'SS_INGEST_SATURATED' || error.code === 'SS_INGEST_UNAVAILABLE')
  );
}
