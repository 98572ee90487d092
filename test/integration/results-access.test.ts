import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { NOT_EXPORTED } from '../../src/config/resolve-export.js';
import type { RunRecord } from '../../src/results/stored-result.js';
import { runRequest, sendRun, serveWithKnownTraffic } from '../helpers/results-traffic.js';
import { loadConfig } from '../../src/config/load-config.js';
import { startService } from '../../src/server/start-service.js';
import { waitFor } from '../helpers/redis.js';

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

const DEMO = new URL('../../config/suites/demo.yaml', import.meta.url).pathname;

/** What a token may do on a serve: send spans (status of POST /v1/traces) and read results. */
async function statuses(origin: string, token: string | undefined) {
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  const { body } = runRequest({
    name: 'probe',
    testCaseId: 'weather-lisbon',
    tools: ['get_weather'],
  });
  const ingest = await fetch(`${origin}/v1/traces`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const read = await fetch(`${origin}/api/v1/summary`, { headers });
  // Metrics carry service, tool and scorer names and trace ids: the read scope's, as the API.
  const metrics = await fetch(`${origin}/metrics`, { headers });
  return {
    ingest: ingest.status,
    read: read.status,
    metrics: metrics.status,
    ingestChallenge: ingest.headers.get('www-authenticate'),
    readChallenge: read.headers.get('www-authenticate'),
    readError: ((await read.json()) as { error?: string }).error,
  };
}

describe('tokens with scopes on a live serve', () => {
  // Each configuration, and what each presented token may do: [ingest status, read status].
  const matrix: Array<[string, Record<string, unknown>, Record<string, [number, number]>]> = [
    [
      'no token configured',
      {},
      { none: [200, 200], ingest: [200, 200], read: [200, 200], wrong: [200, 200] },
    ],
    [
      'ingest tokens only',
      { 'receiver.authTokens': ['agent-a', 'agent-b'] },
      { none: [401, 200], ingest: [200, 200], read: [401, 200], wrong: [401, 200] },
    ],
    [
      'read tokens only',
      { 'results.readTokens': ['reader'] },
      { none: [200, 401], ingest: [200, 401], read: [200, 200], wrong: [200, 401] },
    ],
    [
      'both scopes, one token holding both',
      {
        'receiver.authTokens': ['agent-a', 'both'],
        'results.readTokens': ['reader', 'both'],
      },
      {
        none: [401, 401],
        ingest: [200, 403],
        read: [403, 200],
        both: [200, 200],
        wrong: [401, 401],
      },
    ],
    [
      'the old single token',
      { 'receiver.authToken': 'legacy' },
      { none: [401, 401], legacy: [200, 200], wrong: [401, 401] },
    ],
    [
      'the old single token beside read tokens',
      { 'receiver.authToken': 'legacy', 'results.readTokens': ['reader'] },
      { none: [401, 401], legacy: [200, 403], read: [403, 200] },
    ],
  ];
  const presented: Record<string, string | undefined> = {
    none: undefined,
    ingest: 'agent-a',
    read: 'reader',
    both: 'both',
    legacy: 'legacy',
    wrong: 'not-a-token',
  };

  it.each(matrix)('%s', async (_name, overrides, expected) => {
    const served = await serveWithKnownTraffic(overrides);
    closers.push(served.close);
    for (const [who, [ingest, read]] of Object.entries(expected)) {
      const got = await statuses(served.origin, presented[who]);
      expect({ who, ingest: got.ingest, read: got.read, metrics: got.metrics }).toEqual({
        who,
        ingest,
        read,
        metrics: read,
      });
      // 401 challenges for a bearer token; 403 does not (the token is known, the scope is wrong).
      expect(got.ingestChallenge).toBe(ingest === 401 ? 'Bearer' : null);
      expect(got.readChallenge).toBe(read === 401 ? 'Bearer' : null);
      if (read === 403)
        expect(got.readError).toBe('this token is an ingest token: it may not read results');
    }
  });

  it('sends security headers on the page and the API, and CORS only to listed origins', async () => {
    const served = await serveWithKnownTraffic({
      'results.corsOrigins': ['https://dash.example.com'],
    });
    closers.push(served.close);
    for (const path of ['/ui/', '/ui/js/main.js', '/api/v1/summary', '/api/v1/traces/nope']) {
      const r = await fetch(`${served.origin}${path}`);
      const csp = r.headers.get('content-security-policy') ?? '';
      expect(csp, path).toContain("default-src 'self'");
      expect(csp, path).toContain("frame-ancestors 'none'");
      expect(csp, path).not.toContain('unsafe-inline');
      expect(r.headers.get('x-content-type-options'), path).toBe('nosniff');
      expect(r.headers.get('referrer-policy'), path).toBe('no-referrer');
      expect(r.headers.get('x-frame-options'), path).toBe('DENY');
    }
    // The OTLP receiver is not a page: no CSP there.
    const ingest = await fetch(`${served.origin}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(ingest.headers.get('content-security-policy')).toBeNull();

    const cors = (origin: string) =>
      fetch(`${served.origin}/api/v1/summary`, { headers: { origin } }).then(r =>
        r.headers.get('access-control-allow-origin'),
      );
    expect(await cors('https://dash.example.com')).toBe('https://dash.example.com');
    expect(await cors('https://evil.example.com')).toBeNull();
    const preflight = await fetch(`${served.origin}/api/v1/summary`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://dash.example.com',
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'authorization',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-headers')).toBe('authorization');
  });

  it('answers no CORS at all when no origin is listed', async () => {
    const served = await serveWithKnownTraffic();
    closers.push(served.close);
    const r = await fetch(`${served.origin}/api/v1/summary`, {
      headers: { origin: 'https://dash.example.com' },
    });
    expect(r.status).toBe(200);
    expect(r.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('run records and what they keep', () => {
  it('keep tool calls with their arguments and results, and no arguments or results with storeContent off', async () => {
    for (const storeContent of [true, false]) {
      const served = await serveWithKnownTraffic({ 'results.storeContent': storeContent });
      closers.push(served.close);
      const traceId = await sendRun(`${served.origin}/v1/traces`, {
        name: 'with-args',
        testCaseId: 'book-trip',
        tools: ['search_flights', 'book_flight'],
        toolArgs: ['{"to":"LIS","card":"4111 1111 1111 1111"}', `{"note":"${'x'.repeat(3000)}"}`],
        toolResults: ['{"flights":2}', undefined],
      });
      const record = async () =>
        (await (await fetch(`${served.origin}/api/v1/traces/${traceId}`)).json()) as RunRecord;
      await waitFor(async () => (await record()).state === 'scored', 'the trace scored');
      const { contentKept, toolCalls } = await record();
      expect(contentKept).toBe(storeContent);
      expect(toolCalls.map(c => [c.name, c.source, c.status])).toEqual([
        ['search_flights', 'executed', 'ok'],
        ['book_flight', 'executed', 'ok'],
      ]);
      if (storeContent) {
        expect(toolCalls[0]).toMatchObject({
          arguments: '{"to":"LIS","card":"4111 1111 1111 1111"}',
          result: '{"flights":2}',
        });
        // Long content is cut, and says so.
        expect(toolCalls[1]!.arguments).toHaveLength(2001);
        expect(toolCalls[1]!.arguments!.endsWith('…')).toBe(true);
        expect(toolCalls[1]).not.toHaveProperty('result');
      } else {
        const raw = await (await fetch(`${served.origin}/api/v1/traces/${traceId}`)).text();
        // Sentinels no id or timestamp can hold ('4111' alone was found in an updatedAtUnixMs).
        expect(raw).not.toContain('4111 1111');
        expect(raw).not.toContain('"card"');
        expect(raw).not.toContain('x'.repeat(20));
        expect(raw).not.toContain('flights":2');
      }
      const config = (await (await fetch(`${served.origin}/api/v1/config`)).json()) as {
        storeContent: boolean;
      };
      expect(config.storeContent).toBe(storeContent);
    }
  });
});

describe('no export to itself', () => {
  it('does not send evaluation spans to its own receiver, says so, and records export disabled', async () => {
    const port = await freePort();
    const lines: string[] = [];
    const service = await startService(
      await loadConfig({
        env: {},
        overrides: {
          'receiver.port': port,
          'receiver.host': '127.0.0.1',
          'assembly.settleMs': 50,
          'export.logResults': false,
          'export.url': `http://localhost:${port}/v1/traces`,
          suites: [DEMO],
        },
      }),
      { receiver: true, workers: true },
      { log: line => lines.push(line) },
    );
    closers.push(() => service.close());
    expect(lines).toContain(
      `spanscore: ${NOT_EXPORTED} (http://localhost:${port}/v1/traces is this service's own receiver)`,
    );
    const { traceId, body } = runRequest({
      name: 'self',
      testCaseId: 'weather-lisbon',
      tools: ['get_weather'],
    });
    await fetch(service.url!, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const record = async () =>
      (await (
        await fetch(`http://127.0.0.1:${port}/api/v1/traces/${traceId}`)
      ).json()) as RunRecord;
    await waitFor(async () => (await record()).state === 'scored', 'the trace scored');
    expect((await record()).export).toMatchObject({ state: 'disabled', attempts: 0 });
    const summary = (await (await fetch(`http://127.0.0.1:${port}/api/v1/summary`)).json()) as {
      export: { enabled: boolean };
    };
    expect(summary.export.enabled).toBe(false);
    await new Promise(r => setTimeout(r, 300));
    // Had it exported to itself, its evaluation spans would have come back as late spans.
    expect(lines.filter(l => l.includes('late span'))).toEqual([]);
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
