import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { SpanscoreError } from '../../src/errors/spanscore-error.js';
import { createOtlpHttpReceiver } from '../../src/ingest/otlp-http-receiver.js';
import type { RefusalReason } from '../../src/ingest/refusal-tally.js';
import type { SpanSink } from '../../src/ingest/span-sink.js';
import { otlpRequest, spanId, traceId } from '../helpers/otlp-json-builder.js';

const apps: Array<{ close(): Promise<unknown> }> = [];
afterEach(async () => {
  while (apps.length) await apps.pop()!.close();
});

/** A receiver whose every refusal is heard, with an ingest token, a 2 kB body limit and a sink. */
function receiver(sink: SpanSink = { accept: () => Promise.resolve() }) {
  const heard: Array<{ reason: RefusalReason; message: string }> = [];
  const app = createOtlpHttpReceiver({
    sink,
    maxBodyBytes: 2048,
    tokens: { ingest: ['agent-token'], read: ['reader'] },
    onRefused: (reason, message) => heard.push({ reason, message }),
  });
  apps.push(app);
  return { app, heard };
}

const TOKEN = { authorization: 'Bearer agent-token' };
const JSON_TYPE = { 'content-type': 'application/json' };
const oneSpan = JSON.stringify(
  otlpRequest([{ traceId: traceId(1), spanId: spanId(1, 1), name: 'root', startMs: 0, endMs: 1 }]),
);

describe('the receiver tells onRefused of each request it refuses whole', () => {
  // What is sent, the status it gets and the reason it is counted under.
  const cases: Array<
    [
      string,
      { method?: 'GET' | 'POST'; url?: string; headers?: object; body?: string | Buffer },
      number,
      RefusalReason,
    ]
  > = [
    [
      'the signal path twice',
      { url: '/v1/traces/v1/traces', headers: JSON_TYPE },
      404,
      'wrong_path',
    ],
    ['a near miss', { url: '/v1/trace', headers: JSON_TYPE }, 404, 'wrong_path'],
    ['no token', { headers: JSON_TYPE }, 401, 'token'],
    ['an unknown token', { headers: { ...JSON_TYPE, authorization: 'Bearer nope' } }, 401, 'token'],
    [
      'a read-only token',
      { headers: { ...JSON_TYPE, authorization: 'Bearer reader' } },
      403,
      'token',
    ],
    ['text/plain', { headers: { ...TOKEN, 'content-type': 'text/plain' } }, 415, 'content_type'],
    [
      'a brotli body',
      { headers: { ...TOKEN, ...JSON_TYPE, 'content-encoding': 'br' } },
      415,
      'content_type',
    ],
    [
      'a body past the limit',
      { headers: { ...TOKEN, ...JSON_TYPE }, body: 'x'.repeat(4096) },
      413,
      'size',
    ],
    [
      'a gzip body inflating past the limit',
      {
        headers: { ...TOKEN, ...JSON_TYPE, 'content-encoding': 'gzip' },
        body: gzipSync(Buffer.alloc(64 * 1024, 0x20)),
      },
      413,
      'size',
    ],
    [
      'bad JSON',
      { headers: { ...TOKEN, ...JSON_TYPE }, body: '{"resourceSpans": [' },
      400,
      'decode',
    ],
    [
      'a body that is no gzip',
      { headers: { ...TOKEN, ...JSON_TYPE, 'content-encoding': 'gzip' }, body: 'not gzip' },
      400,
      'decode',
    ],
    [
      'protobuf that is not OTLP',
      {
        headers: { ...TOKEN, 'content-type': 'application/x-protobuf' },
        body: Buffer.from([0x0a, 0x7f]),
      },
      400,
      'decode',
    ],
  ];

  it.each(cases)(
    '%s: %i, counted as %s, with the message its answer carries',
    async (_what, request, status, reason) => {
      const { app, heard } = receiver();
      const response = await app.inject({
        method: request.method ?? 'POST',
        url: request.url ?? '/v1/traces',
        headers: request.headers as Record<string, string>,
        payload: request.body ?? oneSpan,
      });
      expect(response.statusCode).toBe(status);
      expect(heard).toEqual([{ reason, message: expect.any(String) as string }]);
      // The answer's own text (a JSON or a protobuf google.rpc.Status): what the sender read is
      // what the page shows.
      const answered = response.headers['content-type']?.toString().startsWith('application/json')
        ? response.json<{ message: string }>().message
        : response.rawPayload.toString('utf8');
      expect(answered).toContain(heard[0]!.message);
    },
  );

  it('says how to fix the doubled signal path, in the answer and to onRefused alike', async () => {
    const { app, heard } = receiver();
    const response = await app.inject({
      method: 'POST',
      url: '/v1/traces/v1/traces',
      headers: JSON_TYPE,
      payload: oneSpan,
    });
    expect(heard[0]!.message).toContain('set OTEL_EXPORTER_OTLP_ENDPOINT to the base URL only');
    expect(response.json<{ message: string }>().message).toBe(heard[0]!.message);
  });

  it('429 while the buffer is full and 503 while the store is down, whether refused before or after decoding', async () => {
    let refusal: SpanscoreError | undefined = new SpanscoreError(
      'SS_INGEST_SATURATED',
      'span buffer full: 100 of 100 spans held',
      { retryAfterSeconds: 1 },
    );
    const failing: SpanscoreError[] = [
      new SpanscoreError('SS_INGEST_UNAVAILABLE', 'redis unreachable', { retryAfterSeconds: 2 }),
    ];
    const { app, heard } = receiver({
      refusesNow: () => refusal,
      accept: () => {
        const next = failing.shift();
        return next ? Promise.reject(next) : Promise.resolve();
      },
    });
    const send = () =>
      app.inject({
        method: 'POST',
        url: '/v1/traces',
        headers: { ...TOKEN, ...JSON_TYPE },
        payload: oneSpan,
      });
    expect((await send()).statusCode).toBe(429);
    refusal = undefined;
    expect((await send()).statusCode).toBe(503);
    expect((await send()).statusCode).toBe(200);
    expect(heard).toEqual([
      { reason: 'rate', message: 'span buffer full: 100 of 100 spans held' },
      { reason: 'unavailable', message: 'redis unreachable' },
    ]);
  });

  it('does not count what is no refused export: an accepted one, a GET of a path it lacks, the probes', async () => {
    const { app, heard } = receiver();
    const accepted = await app.inject({
      method: 'POST',
      url: '/v1/traces',
      headers: { ...TOKEN, ...JSON_TYPE },
      payload: oneSpan,
    });
    expect(accepted.statusCode).toBe(200);
    for (const url of ['/favicon.ico', '/v1/traces/v1/traces', '/healthz', '/readyz'])
      await app.inject({ method: 'GET', url });
    expect(heard).toEqual([]);
  });
});
