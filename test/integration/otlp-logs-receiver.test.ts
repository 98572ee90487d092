import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { context, trace, TraceFlags } from '@opentelemetry/api';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { OTLPLogExporter as JsonLogExporter } from '@opentelemetry/exporter-logs-otlp-http';
import { OTLPLogExporter as ProtoLogExporter } from '@opentelemetry/exporter-logs-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  InMemoryLogRecordExporter,
  LoggerProvider,
  SimpleLogRecordProcessor,
  type LogRecordExporter,
  type ReadableLogRecord,
} from '@opentelemetry/sdk-logs';
import { afterEach, describe, expect, it } from 'vitest';
import { SpanscoreError } from '../../src/errors/spanscore-error.js';
import { createOtlpHttpReceiver } from '../../src/ingest/otlp-http-receiver.js';
import { isLogEventCarrier } from '../../src/ingest/log-event-carrier.js';
import { createReceiverMetrics, type ReceiverMetrics } from '../../src/ingest/receiver-metrics.js';
import type { SpanDigest } from '../../src/ingest/span-digest.js';
import type { SpanSink } from '../../src/ingest/span-sink.js';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CHAT_SPAN = '00f067aa0ba902b7';

/** A sink that records what it accepted; `full` makes it refuse as a full buffer does. */
function recordingSink(): SpanSink & { accepted: SpanDigest[]; full: boolean } {
  const sink = {
    accepted: [] as SpanDigest[],
    full: false,
    accept(spans: SpanDigest[]): Promise<void> {
      sink.accepted.push(...spans);
      return Promise.resolve();
    },
    refusesNow: () =>
      sink.full
        ? new SpanscoreError('SS_INGEST_SATURATED', 'span buffer full', { retryAfterSeconds: 3 })
        : undefined,
  };
  return sink;
}

/** What an OpenAI instrumentation emits for one chat call, and an application log line. */
function chatRecords(): ReadableLogRecord[] {
  const exporter = new InMemoryLogRecordExporter();
  const provider = new LoggerProvider({
    resource: resourceFromAttributes({ 'service.name': 'logs-agent' }),
    processors: [new SimpleLogRecordProcessor({ exporter })],
  });
  const logger = provider.getLogger('@opentelemetry/instrumentation-openai');
  const inChat = trace.setSpanContext(context.active(), {
    traceId: TRACE,
    spanId: CHAT_SPAN,
    traceFlags: TraceFlags.SAMPLED,
  });
  logger.emit({
    eventName: 'gen_ai.choice',
    context: inChat,
    body: {
      index: 0,
      message: {
        tool_calls: [
          {
            id: 'call_1',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
          },
        ],
      },
    },
  });
  logger.emit({
    context: inChat,
    attributes: { 'event.name': 'gen_ai.tool.message' },
    body: { id: 'call_1', content: '{"temperatureC":18}' },
  });
  logger.emit({ context: inChat, body: 'GET /weather 200', severityText: 'INFO' });
  return exporter.getFinishedLogRecords();
}

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

async function listen(
  sink: SpanSink,
  more: { tokens?: { ingest: string[]; read: string[] }; metrics?: ReceiverMetrics } = {},
): Promise<string> {
  const app = createOtlpHttpReceiver({ sink, ...more });
  await app.listen({ port: 0, host: '127.0.0.1' });
  closers.push(() => app.close());
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}

function exportWith(
  exporter: LogRecordExporter,
  records: ReadableLogRecord[],
): Promise<ExportResult> {
  closers.push(() => exporter.shutdown());
  return new Promise(resolve => exporter.export(records, resolve));
}

describe('POST /v1/logs with the real OpenTelemetry log exporters', () => {
  it.each([
    ['exporter-logs-otlp-http (JSON)', (url: string) => new JsonLogExporter({ url })],
    [
      'exporter-logs-otlp-proto (protobuf, gzip)',
      (url: string) => new ProtoLogExporter({ url, compression: 'gzip' as never }),
    ],
  ])(
    '%s: GenAI events are kept with their trace, the log line is dropped and counted',
    async (_name, make) => {
      const sink = recordingSink();
      const metrics = createReceiverMetrics();
      const origin = await listen(sink, { metrics });
      const result = await exportWith(make(`${origin}/v1/logs`), chatRecords());
      expect(result.code).toBe(ExportResultCode.SUCCESS);
      expect(sink.accepted.map(s => [s.traceId, s.parentSpanId, s.name])).toEqual([
        [TRACE, CHAT_SPAN, 'gen_ai.choice'],
        [TRACE, CHAT_SPAN, 'gen_ai.tool.message'],
      ]);
      expect(sink.accepted.every(isLogEventCarrier)).toBe(true);
      expect(sink.accepted[1]!.attributes.body).toEqual({
        id: 'call_1',
        content: '{"temperatureC":18}',
      });
      const text = await metrics.registry.metrics();
      expect(text).toContain('spanscore_log_records_received_total 2');
      expect(text).toContain('spanscore_log_records_dropped_total{reason="not_gen_ai"} 1');
    },
  );

  it('answers 429 with Retry-After, before decoding, while the buffer is full', async () => {
    const sink = recordingSink();
    sink.full = true;
    const origin = await listen(sink);
    const response = await fetch(`${origin}/v1/logs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: 'not even JSON',
    });
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('3');
    expect(await response.json()).toEqual({ code: 8, message: 'span buffer full' });
  });

  it('reports refused records in partialSuccess.rejectedLogRecords and keeps the rest', async () => {
    const sink = recordingSink();
    const origin = await listen(sink);
    const record = (spanId: string) => ({
      eventName: 'gen_ai.choice',
      traceId: TRACE,
      spanId,
      body: { kvlistValue: { values: [] } },
    });
    const response = await fetch(`${origin}/v1/logs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: gzipSync(
        JSON.stringify({
          resourceLogs: [{ scopeLogs: [{ logRecords: [record('00ff'), record(CHAT_SPAN)] }] }],
        }),
      ),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      partialSuccess: {
        rejectedLogRecords: '1',
        errorMessage:
          '1 log record(s) rejected; first: resourceLogs[0].scopeLogs[0].logRecords[0].spanId: expected 16 hex characters, got "00ff"',
      },
    });
    expect(sink.accepted).toHaveLength(1);
  });

  it('answers a body that is no OTLP request 400, naming what is wrong', async () => {
    const origin = await listen(recordingSink());
    const response = await fetch(`${origin}/v1/logs`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-protobuf' },
      body: Buffer.from([0x0a, 0x7f, 0x01]),
    });
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toBe('application/x-protobuf');
  });

  it('needs an ingest token on /v1/logs and /v1/metrics when tokens are set', async () => {
    const origin = await listen(recordingSink(), {
      tokens: { ingest: ['in-token'], read: ['read-token'] },
    });
    for (const path of ['/v1/logs', '/v1/metrics']) {
      const post = (authorization?: string) =>
        fetch(`${origin}${path}`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            ...(authorization && { authorization }),
          },
          body: '{}',
        });
      expect((await post()).status, path).toBe(401);
      expect((await post('Bearer read-token')).status, path).toBe(403);
      expect((await post('Bearer in-token')).status, path).toBe(200);
    }
  });

  it('accepts /v1/metrics and drops it, counted, so an app sending every signal logs no errors', async () => {
    const metrics = createReceiverMetrics();
    const origin = await listen(recordingSink(), { metrics });
    const response = await fetch(`${origin}/v1/metrics`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-protobuf' },
      body: Buffer.from([0x0a, 0x00]),
    });
    expect(response.status).toBe(200);
    expect(await metrics.registry.metrics()).toContain(
      'spanscore_requests_dropped_total{signal="metrics"} 1',
    );
  });
});
