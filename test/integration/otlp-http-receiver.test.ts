import { gzipSync } from 'node:zlib';
import type { AddressInfo } from 'node:net';
import { context, trace } from '@opentelemetry/api';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { SpanscoreError } from '../../src/errors/spanscore-error.js';
import { decodeOtlpProtobuf } from '../../src/ingest/decode-otlp-protobuf.js';
import {
  createOtlpHttpReceiver,
  type OtlpHttpReceiverOptions,
} from '../../src/ingest/otlp-http-receiver.js';
import { createReceiverMetrics } from '../../src/ingest/receiver-metrics.js';
import type { SpanDigest } from '../../src/ingest/span-digest.js';
import type { SpanSink } from '../../src/ingest/span-sink.js';
import { otlpRequest, spanId, traceId } from '../helpers/otlp-json-builder.js';
import { recordingProvider } from '../helpers/sdk-spans.js';

/** A sink that records what it accepted, and can be told to push back. */
function recordingSink(
  fail: Array<'saturated' | 'unavailable'> = [],
): SpanSink & { accepted: SpanDigest[]; calls: number } {
  const sink = {
    accepted: [] as SpanDigest[],
    calls: 0,
    accept(spans: SpanDigest[]): Promise<void> {
      sink.calls++;
      const next = fail.shift();
      if (next === 'saturated')
        return Promise.reject(
          new SpanscoreError('SS_INGEST_SATURATED', 'span buffer full', { retryAfterSeconds: 1 }),
        );
      if (next === 'unavailable')
        return Promise.reject(
          new SpanscoreError('SS_INGEST_UNAVAILABLE', 'redis unreachable', {
            retryAfterSeconds: 2,
          }),
        );
      sink.accepted.push(...spans);
      return Promise.resolve();
    },
  };
  return sink;
}

function agentSpans(): ReadableSpan[] {
  const { provider, spans } = recordingProvider('receiver-test');
  const tracer = provider.getTracer('agent');
  const root = tracer.startSpan('invoke_agent', {
    attributes: { 'spanscore.test_case.id': 'tc-1' },
  });
  tracer
    .startSpan(
      'execute_tool search',
      {
        attributes: {
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': 'search',
          'gen_ai.tool.call.arguments': '{"q":"otel"}',
        },
      },
      trace.setSpan(context.active(), root),
    )
    .end();
  root.end();
  return spans();
}

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

async function listen(
  options: Partial<OtlpHttpReceiverOptions> & { sink: SpanSink },
): Promise<string> {
  const app = createOtlpHttpReceiver(options);
  await app.listen({ port: 0, host: '127.0.0.1' });
  closers.push(() => app.close());
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/v1/traces`;
}

function exportWith(exporter: SpanExporter, spans: ReadableSpan[]): Promise<ExportResult> {
  closers.push(() => exporter.shutdown());
  return new Promise(resolve => exporter.export(spans, resolve));
}

describe('OTLP/HTTP receiver with the real OpenTelemetry exporters', () => {
  it.each([
    ['exporter-trace-otlp-http (JSON)', (url: string) => new JsonExporter({ url })],
    [
      'exporter-trace-otlp-proto (protobuf, gzip)',
      (url: string) => new ProtoExporter({ url, compression: 'gzip' as never }),
    ],
  ])('%s: every span arrives as a digest', async (_name, make) => {
    const sink = recordingSink();
    const url = await listen({ sink });
    const spans = agentSpans();
    const result = await exportWith(make(url), spans);
    expect(result.code).toBe(ExportResultCode.SUCCESS);
    expect(sink.accepted.map(s => [s.traceId, s.spanId, s.name]).sort()).toEqual(
      spans.map(s => [s.spanContext().traceId, s.spanContext().spanId, s.name]).sort(),
    );
    expect(
      sink.accepted.find(s => s.name === 'execute_tool search')!.attributes[
        'gen_ai.tool.call.arguments'
      ],
    ).toBe('{"q":"otel"}');
    expect(sink.accepted.every(s => s.serviceName === 'receiver-test')).toBe(true);
  });

  it('answers 429 with Retry-After when the buffer is full; the exporter retries and the spans arrive once', async () => {
    const sink = recordingSink(['saturated']);
    const url = await listen({ sink });
    const spans = agentSpans();
    const result = await exportWith(new ProtoExporter({ url }), spans);
    expect(result.code).toBe(ExportResultCode.SUCCESS);
    expect(sink.calls).toBe(2);
    expect(sink.accepted).toHaveLength(spans.length);
  });

  it('needs the bearer token when one is configured; the exporter sends it as a header', async () => {
    const sink = recordingSink();
    const url = await listen({ sink, tokens: { ingest: ['s3cret'], read: [] } });
    expect(
      (
        await exportWith(
          new JsonExporter({ url, headers: { authorization: 'Bearer wrong' } }),
          agentSpans(),
        )
      ).code,
    ).toBe(ExportResultCode.FAILED);
    expect(
      (
        await exportWith(
          new JsonExporter({ url, headers: { authorization: 'Bearer s3cret' } }),
          agentSpans(),
        )
      ).code,
    ).toBe(ExportResultCode.SUCCESS);
    expect(sink.accepted).toHaveLength(2);
  });
});

describe('a mistaken OTLP endpoint', () => {
  it.each([
    [
      'OTEL_EXPORTER_OTLP_ENDPOINT given /v1/traces: the exporter posts /v1/traces/v1/traces',
      '/v1/traces/v1/traces',
      'set OTEL_EXPORTER_OTLP_ENDPOINT to the base URL only',
    ],
    [
      'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT given the bare host: the exporter posts /',
      '',
      'give it the full URL, http://host:4318/v1/traces',
    ],
  ])('%s: 404 with the fix, logged once a minute', async (_what, path, fix) => {
    const sink = recordingSink();
    const lines: string[] = [];
    const url = await listen({ sink, log: line => lines.push(line) });
    const base = url.replace('/v1/traces', '');
    const results = [];
    for (let i = 0; i < 3; i++)
      results.push(await exportWith(new JsonExporter({ url: `${base}${path}` }), agentSpans()));
    // The exporter reports the status alone ("Not Found"); the body and spanscore's log say why.
    expect(results.map(r => r.code)).toEqual(Array(3).fill(ExportResultCode.FAILED));
    const response = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(response.status).toBe(404);
    expect(((await response.json()) as { message: string }).message).toContain(fix);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(fix);
    expect(sink.accepted).toEqual([]);
  });

  it('sends a browser at the root to the results page', async () => {
    const url = await listen({ sink: recordingSink() });
    const response = await fetch(url.replace('/v1/traces', '/'), { redirect: 'manual' });
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe('/ui/');
  });
});

describe('OTLP/HTTP receiver responses', () => {
  const T = traceId(9);
  const good = otlpRequest([
    { traceId: T, spanId: spanId(9, 1), name: 'good', startMs: 0, endMs: 1 },
  ]);
  const mixed = {
    resourceSpans: [
      {
        scopeSpans: [
          {
            spans: [
              { traceId: T, spanId: spanId(9, 2), name: 'ok' },
              { traceId: 'nope', spanId: spanId(9, 3) },
            ],
          },
        ],
      },
    ],
  };
  const inject = (
    options: Partial<OtlpHttpReceiverOptions>,
    body: Buffer | string,
    headers: Record<string, string>,
  ) => {
    const app = createOtlpHttpReceiver({ sink: recordingSink(), ...options });
    closers.push(() => app.close());
    return app.inject({ method: 'POST', url: '/v1/traces', payload: body, headers });
  };

  it('200 with an empty response on full success, in the request content type', async () => {
    const json = await inject({}, JSON.stringify(good), { 'content-type': 'application/json' });
    expect([json.statusCode, json.headers['content-type'], json.body]).toEqual([
      200,
      'application/json',
      '{}',
    ]);
    const pb = await inject(
      {},
      Buffer.from(ProtobufTraceSerializer.serializeRequest(agentSpans())!),
      { 'content-type': 'application/x-protobuf' },
    );
    expect([pb.statusCode, pb.headers['content-type'], pb.rawPayload.length]).toEqual([
      200,
      'application/x-protobuf',
      0,
    ]);
  });

  it('200 with partialSuccess naming the first bad field; the good spans are kept', async () => {
    const sink = recordingSink();
    const res = await inject({ sink }, JSON.stringify(mixed), {
      'content-type': 'application/json; charset=utf-8',
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      partialSuccess: {
        rejectedSpans: '1',
        errorMessage:
          '1 span(s) rejected; first: resourceSpans[0].scopeSpans[0].spans[1].traceId: expected 32 hex characters, got "nope"',
      },
    });
    expect(sink.accepted.map(s => s.name)).toEqual(['ok']);
  });

  it.each([
    [
      'invalid JSON',
      '{"resourceSpans":',
      { 'content-type': 'application/json' },
      400,
      /^invalid JSON/,
    ],
    [
      'a JSON value that is not a request',
      '[1,2]',
      { 'content-type': 'application/json' },
      400,
      /expected an ExportTraceServiceRequest/,
    ],
    [
      'truncated protobuf',
      Buffer.from([0x0a, 0x50, 0x01]),
      { 'content-type': 'application/x-protobuf' },
      400,
      /invalid protobuf at byte/,
    ],
    [
      'a corrupt gzip body',
      Buffer.from('not gzip'),
      { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      400,
      /invalid gzip body/,
    ],
    [
      'another content type',
      'hello',
      { 'content-type': 'text/plain' },
      415,
      /unsupported content type text\/plain/,
    ],
    [
      'another content encoding',
      '{}',
      { 'content-type': 'application/json', 'content-encoding': 'br' },
      415,
      /unsupported content encoding br/,
    ],
  ])('%s → %i with a message', async (_name, body, headers, status, message) => {
    const res = await inject({}, body, headers);
    expect(res.statusCode).toBe(status);
    const text =
      res.headers['content-type'] === 'application/json'
        ? res.json<{ message: string }>().message
        : res.rawPayload.subarray(2).toString('utf8');
    expect(text).toMatch(message);
  });

  it('413 above the body limit, compressed or after decompression (a gzip bomb)', async () => {
    const big = await inject({ maxBodyBytes: 1024 }, Buffer.alloc(2048, 0x20), {
      'content-type': 'application/json',
    });
    expect(big.statusCode).toBe(413);
    const bomb = await inject(
      { maxBodyBytes: 64 * 1024 },
      gzipSync(Buffer.alloc(10 * 1024 * 1024, 0x20)),
      { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    );
    expect(bomb.statusCode).toBe(413);
    expect(bomb.json<{ message: string }>().message).toBe('decompressed body exceeds 65536 bytes');
  });

  it('503 with Retry-After when the store is unavailable; nothing is counted as received', async () => {
    const metrics = createReceiverMetrics();
    const res = await inject(
      { sink: recordingSink(['unavailable']), metrics },
      JSON.stringify(good),
      { 'content-type': 'application/json' },
    );
    expect([res.statusCode, res.headers['retry-after']]).toEqual([503, '2']);
    expect(
      await metrics.registry.getSingleMetricAsString('spanscore_spans_received_total'),
    ).toMatch(/spanscore_spans_received_total 0$/m);
    expect(
      await metrics.registry.getSingleMetricAsString('spanscore_spans_backpressure_total'),
    ).toContain('spanscore_spans_backpressure_total{reason="unavailable"} 1');
  });

  it('while the sink says it is full, refuses (429, Retry-After) before decoding: even a body that would not decode', async () => {
    const metrics = createReceiverMetrics();
    let full = true;
    const sink = Object.assign(recordingSink(), {
      refusesNow: () =>
        full
          ? new SpanscoreError(
              'SS_INGEST_SATURATED',
              'the span buffer holds 4 of at most 4 spans',
              {
                retryAfterSeconds: 1,
              },
            )
          : undefined,
    });
    const garbage = await inject({ sink, metrics }, Buffer.from([0xff, 0xff, 0xff]), {
      'content-type': 'application/x-protobuf',
    });
    expect([garbage.statusCode, garbage.headers['retry-after']]).toEqual([429, '1']);
    expect(sink.calls).toBe(0);
    expect(
      await metrics.registry.getSingleMetricAsString('spanscore_requests_rejected_total'),
    ).toContain('spanscore_requests_rejected_total{reason="saturated"} 1');
    // Room again: the same garbage is decoded, and refused as what it is.
    full = false;
    const decoded = await inject({ sink, metrics }, Buffer.from([0xff, 0xff, 0xff]), {
      'content-type': 'application/x-protobuf',
    });
    expect(decoded.statusCode).toBe(400);
  });

  it('a JSON body with no resourceSpans is an empty export (200), counted, and logged once a minute', async () => {
    const metrics = createReceiverMetrics();
    const lines: string[] = [];
    const sink = recordingSink();
    const app = createOtlpHttpReceiver({ sink, metrics, log: line => lines.push(line) });
    for (let i = 0; i < 3; i++) {
      const res = await app.inject({
        method: 'POST',
        url: '/v1/traces',
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({ nope: 1, data: [] }),
      });
      expect(res.statusCode).toBe(200);
    }
    await app.close();
    expect(
      await metrics.registry.getSingleMetricAsString('spanscore_requests_empty_total'),
    ).toContain('spanscore_requests_empty_total{reason="not_otlp"} 3');
    expect(lines).toEqual([
      'spanscore: POST /v1/traces: a JSON body with no resourceSpans (it has nope, data) was read as an empty export (200): is the sender sending OTLP traces?',
    ]);
  });

  it('serves /healthz, /readyz and /metrics', async () => {
    let ready = false;
    const metrics = createReceiverMetrics();
    const app = createOtlpHttpReceiver({
      sink: recordingSink(),
      ready: () => Promise.resolve(ready),
      metrics,
    });
    closers.push(() => app.close());
    await app.inject({
      method: 'POST',
      url: '/v1/traces',
      payload: JSON.stringify(mixed),
      headers: { 'content-type': 'application/json' },
    });
    expect((await app.inject('/healthz')).statusCode).toBe(200);
    expect((await app.inject('/readyz')).statusCode).toBe(503);
    ready = true;
    expect((await app.inject('/readyz')).statusCode).toBe(200);
    const text = (await app.inject('/metrics')).body;
    expect(text).toMatch(/^spanscore_spans_received_total 1$/m);
    expect(text).toMatch(/^spanscore_spans_rejected_total 1$/m);
  });

  it('fuzz: random and mutated bodies get 200 or 400, never a 500, and the server keeps serving', async () => {
    const sink = recordingSink();
    const app = createOtlpHttpReceiver({ sink });
    closers.push(() => app.close());
    const valid = Buffer.from(ProtobufTraceSerializer.serializeRequest(agentSpans())!);
    let cases = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.uint8Array({ maxLength: 300 }).map(b => Buffer.from(b)),
          fc
            .tuple(fc.nat({ max: valid.length - 1 }), fc.integer({ min: 0, max: 255 }))
            .map(([at, v]) => Buffer.from(valid.map((b, i) => (i === at ? v : b)))),
        ),
        fc.constantFrom('application/x-protobuf', 'application/json'),
        async (body, type) => {
          cases++;
          const res = await app.inject({
            method: 'POST',
            url: '/v1/traces',
            payload: body,
            headers: { 'content-type': type },
          });
          expect([200, 400]).toContain(res.statusCode);
        },
      ),
      { numRuns: 400 },
    );
    expect(cases).toBe(400);
    expect((await app.inject('/healthz')).statusCode).toBe(200);
    // A valid request after the fuzzing is still decoded exactly.
    const res = await app.inject({
      method: 'POST',
      url: '/v1/traces',
      payload: valid,
      headers: { 'content-type': 'application/x-protobuf' },
    });
    expect(res.statusCode).toBe(200);
    expect(decodeOtlpProtobuf(valid).spans).toHaveLength(2);
  });
});
