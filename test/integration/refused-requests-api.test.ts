import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { MAX_FIX_CHARS, type RefusedRequests } from '../../src/ingest/refusal-tally.js';
import { startService } from '../../src/server/start-service.js';
import { runRequest } from '../helpers/results-traffic.js';

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

/** A serve (memory driver) with an ingest token, a read token and a 4 kB body limit. */
async function serve() {
  const config = await loadConfig({
    env: {},
    overrides: {
      'receiver.port': 0,
      'receiver.host': '127.0.0.1',
      'receiver.maxBodyBytes': 4096,
      'receiver.authTokens': ['agent-token'],
      'results.readTokens': ['reader'],
      'export.logResults': false,
    },
  });
  const service = await startService(
    config,
    { receiver: true, workers: true },
    {
      log: () => undefined,
      exporter: { export: () => Promise.resolve(), shutdown: () => Promise.resolve() },
    },
  );
  closers.push(() => service.close());
  return new URL(service.url!).origin;
}

const READ = { authorization: 'Bearer reader' };

async function summary(origin: string, query = 'window=1h') {
  const response = await fetch(`${origin}/api/v1/summary?${query}`, { headers: READ });
  expect(response.status).toBe(200);
  return (await response.json()) as { refused: RefusedRequests[]; total: { count: number } };
}

/** POSTs a JSON body; resolves with the status and the answer's message. */
async function post(origin: string, path: string, headers: Record<string, string>, body: string) {
  const response = await fetch(`${origin}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
  return {
    status: response.status,
    message: ((await response.json()) as { message: string }).message,
  };
}

describe('GET /api/v1/summary: the requests the receiver refused', () => {
  it('counts them by reason, the latest first, each with the fix its answer gave', async () => {
    const origin = await serve();
    const body = JSON.stringify(runRequest({ name: 'r', tools: ['get_weather'] }).body);
    const token = { authorization: 'Bearer agent-token' };

    // Nothing refused yet: the list is there, and empty.
    expect((await summary(origin)).refused).toEqual([]);

    const doubled = await post(origin, '/v1/traces/v1/traces', token, body);
    expect(doubled.status).toBe(404);
    const noToken = await post(origin, '/v1/traces', {}, body);
    expect(noToken.status).toBe(401);
    const tooLarge = await post(origin, '/v1/traces', token, `{"pad":"${'x'.repeat(8192)}"}`);
    expect(tooLarge.status).toBe(413);
    const badJson = await post(origin, '/v1/traces', token, '{"resourceSpans": [');
    expect(badJson.status).toBe(400);
    const doubledAgain = await post(origin, '/v1/logs/v1/logs', token, body);
    expect(doubledAgain.status).toBe(404);
    // Not refusals: an accepted export, and a browser's GET of a path there is not.
    expect((await post(origin, '/v1/traces', token, body)).status).toBe(200);
    expect((await fetch(`${origin}/favicon.ico`)).status).toBe(404);

    const { refused, total } = await summary(origin);
    expect(total.count).toBe(0);
    expect(refused.map(r => [r.reason, r.count])).toEqual([
      ['wrong_path', 2],
      ['decode', 1],
      ['size', 1],
      ['token', 1],
    ]);
    // Prometheus counts the same refusals under the same reasons; the others are there at 0.
    const metrics = await (await fetch(`${origin}/metrics`, { headers: READ })).text();
    const counted = Object.fromEntries(
      [...metrics.matchAll(/^spanscore_requests_refused_total\{reason="(\w+)"\} (\d+)$/gm)].map(
        m => [m[1]!, Number(m[2])],
      ),
    );
    expect(counted).toEqual({
      wrong_path: 2,
      token: 1,
      content_type: 0,
      size: 1,
      decode: 1,
      rate: 0,
      unavailable: 0,
    });
    const byReason = Object.fromEntries(refused.map(r => [r.reason, r]));
    // The latest answer of each reason, word for word.
    expect(byReason.wrong_path!.fix).toBe(doubledAgain.message);
    expect(byReason.wrong_path!.fix).toContain(
      'set OTEL_EXPORTER_OTLP_ENDPOINT to the base URL only (http://host:4318, which the exporter completes with /v1/logs)',
    );
    expect(byReason.token!.fix).toBe(noToken.message);
    expect(byReason.size!.fix).toBe(tooLarge.message);
    expect(byReason.decode!.fix).toBe(badJson.message);
    for (const r of refused) expect(Math.abs(r.lastAtUnixMs - Date.now())).toBeLessThan(60_000);

    // The summary's window: a range that ended before them holds none.
    const hourAgo = Date.now() - 3_600_000;
    expect((await summary(origin, `from=${hourAgo - 600_000}&to=${hourAgo}`)).refused).toEqual([]);
    // A filter of results does not hide them: a refused request has no scorer or service.
    expect((await summary(origin, 'window=15m&service=travel-agent')).refused).toHaveLength(4);
  });

  it('bounds the answer it keeps of a hostile request, and keeps markup as text', async () => {
    const origin = await serve();
    const markup = '<img src=x onerror=alert(1)>';
    const response = await fetch(`${origin}/v1/traces`, {
      method: 'POST',
      headers: {
        authorization: 'Bearer agent-token',
        'content-type': `text/${markup.repeat(200)}`,
      },
      body: 'x',
    });
    expect(response.status).toBe(415);
    const [refusal] = (await summary(origin)).refused;
    expect(refusal!.reason).toBe('content_type');
    expect(refusal!.fix.length).toBe(MAX_FIX_CHARS);
    expect(refusal!.fix).toMatch(/^unsupported content type text\/<img src=x onerror=alert\(1\)>/);
  });
});
