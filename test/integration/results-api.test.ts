import fc from 'fast-check';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { startService } from '../../src/server/start-service.js';
import { ROOT } from '../helpers/markdown-docs.js';
import { REDIS_URL, redisFor, testPrefix } from '../helpers/redis.js';
import { KNOWN_RUNS, runRequest, serveWithKnownTraffic } from '../helpers/results-traffic.js';

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

async function get(origin: string, path: string, token?: string) {
  const response = await fetch(`${origin}${path}`, {
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

type Group = {
  scorer?: string;
  testCaseId?: string;
  count: number;
  pass: number;
  fail: number;
  passRate: number | null;
};

describe('the results API on the serve port (memory driver)', () => {
  it('answers summary, results and run records for the traffic it scored', async () => {
    const { origin, ids, close } = await serveWithKnownTraffic();
    closers.push(close);

    const summary = await get(origin, '/api/v1/summary?window=1h');
    expect(summary.status).toBe(200);
    expect(summary.body.total).toMatchObject({ count: 10, pass: 5, fail: 5, passRate: 0.5 });
    expect(
      (summary.body.byScorer as Group[]).map(g => [g.scorer, g.pass, g.fail, g.passRate]),
    ).toEqual([
      ['tool_call_accuracy', 2, 3, 0.4],
      ['tool_correctness', 3, 2, 0.6],
    ]);
    expect(
      (summary.body.byTarget as Group[]).map(g => [g.testCaseId, g.scorer, g.passRate]),
    ).toEqual([
      ['book-trip', 'tool_call_accuracy', 0.5],
      ['book-trip', 'tool_correctness', 1],
      ['weather-lisbon', 'tool_call_accuracy', 0.5],
      ['weather-lisbon', 'tool_correctness', 0.5],
      ['wrong-tool', 'tool_call_accuracy', 0],
      ['wrong-tool', 'tool_correctness', 0],
    ]);
    expect(summary.body.notScored).toHaveLength(2);
    // The range read comes back, so the page never parses a duration itself.
    const range = summary.body.range as { fromUnixMs: number; toUnixMs: number };
    expect(range.toUnixMs - range.fromUnixMs).toBe(3_600_000);
    expect(Math.abs(range.toUnixMs - Date.now())).toBeLessThan(60_000);

    // `window` on results and on a comparison by window (the last hour against the one before).
    const lastHour = await get(origin, '/api/v1/results?window=1h&label=fail&limit=500');
    expect(lastHour.body.results).toHaveLength(5);
    const beforeThat = await get(
      origin,
      `/api/v1/results?from=${range.fromUnixMs - 3_600_000}&to=${range.fromUnixMs}`,
    );
    expect(beforeThat.body.results).toHaveLength(0);
    const byWindow = await get(origin, '/api/v1/compare?by=window&window=1h');
    expect(byWindow.status).toBe(200);
    const labels = (side: string) =>
      (byWindow.body[side] as { labels: { from: string; to: string } }).labels;
    const [current, baseline] = [labels('current'), labels('baseline')];
    expect(Date.parse(current.to) - Date.parse(current.from)).toBe(3_600_000);
    expect(baseline.to).toBe(current.from);
    expect(Date.parse(baseline.to) - Date.parse(baseline.from)).toBe(3_600_000);
    const compared = byWindow.body.comparisons as Array<{ baseline: unknown; verdict: string }>;
    expect(compared.length).toBeGreaterThan(0);
    expect(compared.every(c => c.baseline === null && c.verdict === 'new')).toBe(true);

    const byService = await get(origin, '/api/v1/summary?window=1h&service=travel-agent-v2');
    expect(byService.body.total).toMatchObject({ count: 2, pass: 0, fail: 2 });

    const fails = await get(origin, '/api/v1/results?label=fail&scorer=tool_correctness');
    const rows = fails.body.results as Array<Record<string, unknown>>;
    expect(rows.map(r => r.traceId).sort()).toEqual(
      [ids['wrong-tool'], ids['weather-extra']].sort(),
    );
    const wrong = rows.find(r => r.traceId === ids['wrong-tool'])!;
    expect(wrong).toMatchObject({
      testCaseId: 'wrong-tool',
      reason: 'missing get_weather; unexpected search_web',
      expectedTools: ['get_weather'],
      toolSequence: ['search_web'],
      serviceName: 'travel-agent-v2',
      agentName: 'travel',
      toolDiff: [
        { op: 'extra', name: 'search_web' },
        { op: 'missing', name: 'get_weather' },
      ],
    });

    const page1 = await get(origin, '/api/v1/results?limit=6');
    expect(page1.body.results).toHaveLength(6);
    const page2 = await get(
      origin,
      `/api/v1/results?limit=6&cursor=${String(page1.body.nextCursor)}`,
    );
    expect(page2.body.results).toHaveLength(4);
    expect(page2.body.nextCursor).toBeNull();

    const scored = await get(origin, `/api/v1/traces/${ids['book-wrong-order']}`);
    expect(scored.body).toMatchObject({
      state: 'scored',
      testCaseId: 'book-trip',
      matched: ['demo / book-trip'],
    });
    expect((scored.body.results as unknown[]).length).toBe(2);

    const unknown = await get(origin, `/api/v1/traces/${ids['unknown-case']}`);
    expect(unknown.body).toMatchObject({ state: 'not_scored', testCaseId: 'no-such-case' });
    expect(unknown.body.reason).toContain('"no-such-case" is in no suite');

    const noId = await get(origin, `/api/v1/traces/${ids['no-id']}`);
    expect(noId.body).toMatchObject({ state: 'not_scored' });
    expect(noId.body.reason).toMatch(/^no test case id attribute/);

    const pending = await get(origin, `/api/v1/traces/${ids.pending}`);
    expect(pending.body).toMatchObject({
      state: 'pending',
      reason: 'received; waiting for its root span to end',
    });

    const missing = await get(origin, `/api/v1/traces/${'c'.repeat(32)}`);
    expect(missing.status).toBe(404);
    expect(missing.body.error).toMatch(/^no record of trace c{32}: never received here/);
  });

  it('refuses bad parameters with a 400 that names them', async () => {
    const { origin, close } = await serveWithKnownTraffic();
    closers.push(close);
    const cases: Array<[string, string]> = [
      ['/api/v1/results?label=maybe', 'query parameter "label"'],
      ['/api/v1/results?limit=0', 'query parameter "limit"'],
      ['/api/v1/results?limit=9999', 'query parameter "limit"'],
      ['/api/v1/results?colour=red', 'unknown query parameter(s) "colour"'],
      ['/api/v1/results?from=yesterday', 'query parameter "from"'],
      ['/api/v1/results?cursor=abc', 'expected a cursor from a previous page'],
      ['/api/v1/summary?window=1y', 'expected a duration such as 15m, 1h or 7d'],
      ['/api/v1/summary?from=2026-11-23T10:00:00Z&to=2026-11-23T09:00:00Z', 'from is after to'],
      ['/api/v1/traces/XYZ', 'path parameter "traceId": expected 32 lower-case hex digits'],
      // Past the largest date: 400, not a 500 from `new Date(…).toISOString()`.
      [
        '/api/v1/compare?by=window&baselineFrom=8640000000000001&baselineTo=8640000000000002&candidateFrom=1&candidateTo=2',
        'query parameter "baselineFrom": expected a time from 1970 to',
      ],
      ['/api/v1/results?to=9999999999999999', 'query parameter "to": expected a time from 1970'],
      // Before 1970: a negative time, which the Redis store's stream reads sent as an id Redis
      // refuses (a 500).
      [
        '/api/v1/results?to=0000-01-01T00:00:00Z',
        'query parameter "to": expected a time from 1970',
      ],
      ['/api/v1/summary?window=999999999999d', 'expected a duration shorter than'],
      ['/api/v1/results?cursor=99999999999999999999-1', 'expected a cursor from a previous page'],
    ];
    for (const [path, message] of cases) {
      const { status, body } = await get(origin, path);
      expect({ path, status }).toEqual({ path, status: 400 });
      expect(body.error).toContain(message);
    }
  });

  it('answers any query string with 200 or a 400 naming the problem, never a 500 (fuzzed)', async () => {
    const { origin, close } = await serveWithKnownTraffic();
    closers.push(close);
    const keys = [
      'scorer',
      'label',
      'status',
      'testCase',
      'service',
      'traceId',
      'from',
      'to',
      'limit',
      'cursor',
      'window',
      'x',
    ];
    const value = fc.oneof(
      fc.string({ maxLength: 40 }),
      fc.stringMatching(/^\d{1,20}(-\d{1,20})?[mhd]?$/), // numbers of every size, up to out of range
      fc.constantFrom('version', 'window'),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('results', 'summary', 'compare'),
        fc.array(
          fc.tuple(
            fc.constantFrom(
              ...keys,
              'by',
              'baselineFrom',
              'baselineTo',
              'candidateFrom',
              'candidateTo',
              'alpha',
              'baseline',
              'candidate',
            ),
            value,
          ),
          { maxLength: 6 },
        ),
        async (endpoint, params) => {
          const { status, body } = await get(
            origin,
            `/api/v1/${endpoint}?${new URLSearchParams(params).toString()}`,
          );
          expect([200, 400]).toContain(status);
          if (status === 400) expect(typeof body.error).toBe('string');
        },
      ),
      { numRuns: 300 },
    );
  });

  it('sits behind the receiver’s bearer token when one is configured; the page itself loads', async () => {
    const { origin, close } = await serveWithKnownTraffic({ 'receiver.authToken': 's3cret' });
    closers.push(close);
    expect((await get(origin, '/api/v1/summary')).status).toBe(401);
    expect((await get(origin, '/api/v1/summary', 'wrong')).status).toBe(401);
    const ok = await get(origin, '/api/v1/summary', 's3cret');
    expect(ok.status).toBe(200);
    expect(ok.body.total).toMatchObject({ count: 10 });
    const page = await fetch(`${origin}/ui/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<title>spanscore results</title>');
    const chartLib = await fetch(`${origin}/ui/uplot.min.js`);
    expect(chartLib.headers.get('content-type')).toContain('javascript');
  });
});

describe('results.write off', () => {
  it('scores, exports and counts every trace, and keeps nothing in the results store', async () => {
    const exported = new Set<string>();
    // The memory driver, whatever the environment says (CI sets REDIS_URL).
    const config = await loadConfig({
      env: {},
      overrides: {
        'receiver.port': 0,
        'receiver.host': '127.0.0.1',
        'assembly.settleMs': 100,
        'export.logResults': false,
        'results.write': false,
        // The known traffic's counts are the demo suite's (see serveWithKnownTraffic).
        'toolHealth.enabled': false,
        suites: [join(ROOT, 'config/suites/demo.yaml')],
      },
    });
    const service = await startService(
      config,
      { receiver: true, workers: true },
      {
        log: () => undefined,
        exporter: {
          export: spans => {
            for (const span of spans) exported.add(span.traceId);
            return Promise.resolve();
          },
          shutdown: () => Promise.resolve(),
        },
      },
    );
    closers.push(() => service.close());
    const origin = new URL(service.url!).origin;
    const ids: Record<string, string> = {};
    for (const run of KNOWN_RUNS) {
      const { traceId, body } = runRequest(run);
      ids[run.name] = traceId;
      const response = await fetch(`${origin}/v1/traces`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(response.status).toBe(200);
    }
    // The five finished traces of a known test case (the other two: no such case, no root yet).
    const scored = ['weather-ok', 'book-ok', 'book-wrong-order', 'wrong-tool', 'weather-extra'];
    await vi.waitFor(() => expect(exported.size).toBe(scored.length), { timeout: 20_000 });
    expect([...exported].sort()).toEqual(scored.map(n => ids[n]).sort());
    const metrics = await (await fetch(`${origin}/metrics`)).text();
    expect(metrics).toMatch(/^spanscore_traces_scored_total\S* [1-9]/m);
    expect((await get(origin, '/api/v1/summary?window=1h')).body.total).toMatchObject({ count: 0 });
    expect((await get(origin, '/api/v1/results')).body.results).toEqual([]);
    // Once the service lets go of the traces (right after their export), nothing is left of them.
    for (const name of ['book-ok', 'unknown-case'])
      await vi.waitFor(
        async () => expect((await get(origin, `/api/v1/traces/${ids[name]}`)).status).toBe(404),
        { timeout: 10_000 },
      );
  });
});

describe('the results API with the bullmq driver', () => {
  it('keeps results and run records in Redis across a restart of serve', async () => {
    const prefix = testPrefix();
    const redis = redisFor(prefix);
    closers.push(() => redis.cleanup());
    const overrides = { 'queue.driver': 'bullmq', 'queue.prefix': prefix };
    const env = { REDIS_URL };
    const first = await serveWithKnownTraffic(overrides, env);
    const before = await get(first.origin, '/api/v1/summary?window=1h');
    expect(before.body.total).toMatchObject({ count: 10, pass: 5, fail: 5 });
    await first.close();

    const second = await serveWithKnownTraffic(overrides, env);
    closers.push(second.close);
    const after = await get(second.origin, '/api/v1/summary?window=1h');
    expect(after.body.total).toMatchObject({ count: 20, pass: 10, fail: 10 });
    const old = await get(second.origin, `/api/v1/traces/${first.ids['wrong-tool']}`);
    expect(old.body).toMatchObject({ state: 'scored', testCaseId: 'wrong-tool' });
    const oldUnknown = await get(second.origin, `/api/v1/traces/${first.ids['unknown-case']}`);
    expect(oldUnknown.body).toMatchObject({ state: 'not_scored' });
    const pending = await get(second.origin, `/api/v1/traces/${second.ids.pending}`);
    expect(pending.body).toMatchObject({ state: 'pending' });

    // Paged 7 at a time through both runs' 20 results (stream entries hold many): each once.
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await get(
        second.origin,
        `/api/v1/results?limit=7${cursor ? `&cursor=${cursor}` : ''}`,
      );
      expect(page.status).toBe(200);
      const rows = page.body.results as Array<{
        traceId: string;
        scorer: string;
        timeUnixMs: number;
      }>;
      seen.push(...rows.map(r => `${r.traceId} ${r.scorer}`));
      cursor = page.body.nextCursor as string | null;
    } while (cursor);
    expect(seen).toHaveLength(20);
    expect(new Set(seen).size).toBe(20);
  });

  // A rolling upgrade to `results.layout: 2`, and the switch back: serve restarted with the other
  // layout answers for what the first wrote exactly as the first did, beside what it writes.
  it.each([
    [1, 2],
    [2, 1],
  ] as const)(
    'answers the same for what serve wrote with results layout %i after a restart with layout %i',
    async (from, to) => {
      const prefix = testPrefix();
      const redis = redisFor(prefix);
      closers.push(() => redis.cleanup());
      const overrides = { 'queue.driver': 'bullmq', 'queue.prefix': prefix };
      const answers = async (origin: string, ids: Record<string, string>) => {
        const out: Record<string, unknown> = {};
        for (const [name, id] of Object.entries(ids)) {
          out[`trace ${name}`] = (await get(origin, `/api/v1/traces/${id}`)).body;
          out[`results ${name}`] = (await get(origin, `/api/v1/results?traceId=${id}`)).body;
        }
        return out;
      };
      const first = await serveWithKnownTraffic(
        { ...overrides, 'results.layout': from },
        { REDIS_URL },
      );
      // A trace's export ends after its run record is written, so the snapshot waits for every
      // scored trace's export to end: closing serve would otherwise end it under the comparison.
      let before: Record<string, unknown> = {};
      await vi.waitFor(
        async () => {
          before = await answers(first.origin, first.ids);
          const exporting = Object.entries(before).filter(([, body]) => {
            const run = body as { state?: string; export?: { state: string } };
            return run.state === 'scored' && run.export?.state === 'pending';
          });
          expect(exporting.map(([name]) => name)).toEqual([]);
        },
        { timeout: 10_000, interval: 50 },
      );
      await first.close();
      // The layout from the environment, as a deployment would set it.
      const second = await serveWithKnownTraffic(overrides, {
        REDIS_URL,
        SPANSCORE_RESULTS_LAYOUT: String(to),
      });
      closers.push(second.close);
      expect(await answers(second.origin, first.ids)).toEqual(before);
      // Both passes' results are listed and counted, each once, and the new traces read whole.
      const summary = await get(second.origin, '/api/v1/summary?window=1h');
      expect(summary.body.total).toMatchObject({ count: 20, pass: 10, fail: 10 });
      const page = await get(second.origin, '/api/v1/results?limit=100');
      expect((page.body.results as unknown[]).length).toBe(20);
      const scored = await get(second.origin, `/api/v1/traces/${second.ids['wrong-tool']}`);
      expect(scored.body).toMatchObject({ state: 'scored', testCaseId: 'wrong-tool' });
      expect((scored.body.results as unknown[]).length).toBeGreaterThan(0);
      expect((scored.body.toolCalls as unknown[]).length).toBeGreaterThan(0);
      expect(scored.body.resultsDropped).toBeUndefined();
      // Each wrote its own layout: layout 2's run records point at their results ('@' lines).
      const pointsAt = async (id: string) =>
        ((await redis.commands.get(`${prefix}:run:{${id}}`)) ?? '').includes('\n@');
      expect(await pointsAt(first.ids['wrong-tool']!)).toBe(from === 2);
      expect(await pointsAt(second.ids['wrong-tool']!)).toBe(to === 2);
    },
    60_000,
  );
});
