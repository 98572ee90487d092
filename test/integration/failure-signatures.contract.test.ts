import { afterEach, describe, expect, it } from 'vitest';
import { createRedisConnection, whenReady } from '../../src/redis/redis-connection.js';
import { createRedisResultsStore } from '../../src/redis/redis-results-store.js';
import {
  MAX_MINUTE_CHARS,
  MAX_SIGNATURES_PER_TOOL,
} from '../../src/results/failure-signature-minutes.js';
import { createMemoryResultsStore } from '../../src/results/memory-results-store.js';
import { resultsStoreSink, type ResultsStore } from '../../src/results/results-store.js';
import { scoreTrace } from '../../src/score/score-trace.js';
import type { ScoringPlan } from '../../src/score/scoring-plan.js';
import { resolveToolHealth } from '../../src/suite/tool-health-rule.js';
import { CONFIG_DEFAULTS } from '../helpers/config-defaults.js';
import { clusterForTests } from '../helpers/redis-cluster.js';
import { redisFor, testPrefix } from '../helpers/redis.js';
import { agentTrace, type CallInput } from '../helpers/trace-builder.js';

/**
 * Failure signatures in the results store, the same contract for both drivers (the memory store,
 * and Redis: one server and a 3-master Redis Cluster): traces scored by tool health through the
 * real per-trace loop into the store's sink, then `failures` read back.
 */
const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

const retention = {
  maxResults: 1000,
  maxRuns: 1000,
  retentionMs: 3_600_000,
  storeContent: true,
  maxServices: 20,
  maxToolsPerService: 30,
};

/** One 3-master cluster for the file's cluster tests, formed before them. */
const cluster = clusterForTests({ masters: 3 });

const stores: Record<string, (prefix?: string) => Promise<ResultsStore>> = {
  memory: () => Promise.resolve(createMemoryResultsStore(retention)),
  redis: async (prefix = testPrefix()) => {
    const redis = redisFor(prefix);
    closers.push(() => redis.cleanup());
    await whenReady(redis.commands);
    return createRedisResultsStore(redis.commands, prefix, retention);
  },
  'redis cluster': async () => {
    const commands = createRedisConnection({ clusterNodes: cluster().nodes }, 'commands');
    closers.push(async () => commands.disconnect());
    await whenReady(commands, 5000);
    return createRedisResultsStore(commands, testPrefix(), retention);
  },
};

const plan: ScoringPlan = {
  suites: [],
  rules: [],
  toolHealth: resolveToolHealth({
    toolHealth: { ...CONFIG_DEFAULTS.toolHealth, minRepeats: 3 },
    results: CONFIG_DEFAULTS.results,
  }),
};

/** Scores one trace of `calls` into `store`; returns its trace id. */
async function score(store: ResultsStore, calls: CallInput[], traceId?: string): Promise<string> {
  const trace = agentTrace(calls);
  const id = traceId ?? trace.traceId;
  const spans = trace.spans.map(s => ({ ...s, traceId: id }));
  await scoreTrace(id, spans, plan, {
    sinks: [resultsStoreSink(store, { exportState: 'disabled' })],
  });
  return id;
}

const fail = (name: string, error: string): CallInput => ({ name, args: {}, result: {}, error });
const window = () => [Date.now() - 3_600_000, Date.now() + 1000] as const;

describe.each(Object.keys(stores))('failure signatures in the %s results store', name => {
  const make = stores[name]!;

  it('groups failed calls by normalized error text, with counts, times and example traces', async () => {
    const store = await make();
    const before = Date.now();
    const a = await score(store, [fail('get_weather', 'no station 12'), 'get_weather']);
    const b = await score(store, [fail('get_weather', 'no station 34')]);
    await score(store, [
      fail('search_web', 'GET https://api.example.com/v1/search?q=secret failed: 503'),
    ]);
    const [from, to] = window();
    const got = await store.failures(from, to);
    expect(got.signatures).toEqual([
      {
        service: 'test-service',
        tool: 'get_weather',
        signature: 'no station <n>',
        count: 2,
        errors: 2,
        refused: 0,
        firstSeenUnixMs: expect.any(Number),
        lastSeenUnixMs: expect.any(Number),
        versions: [],
        exampleTraceIds: [b, a],
      },
      expect.objectContaining({
        tool: 'search_web',
        signature: 'GET https://api.example.com/<path> failed: <n>',
        count: 1,
      }),
    ]);
    const [weather] = got.signatures;
    expect(weather!.firstSeenUnixMs).toBeGreaterThanOrEqual(before - 60_000);
    expect(weather!.lastSeenUnixMs).toBeGreaterThanOrEqual(weather!.firstSeenUnixMs);
    expect(got).toMatchObject({ fromUnixMs: from, toUnixMs: to, other: [], heldSinceUnixMs: null });
    // The same failures the per-tool counters count.
    const tools = await store.tools(from, to);
    expect(tools.tools.find(t => t.tool === 'get_weather')!.errors).toBe(2);

    const filtered = await store.failures(from, to, {
      tool: 'search_web',
      service: 'test-service',
    });
    expect(filtered.signatures.map(s => s.tool)).toEqual(['search_web']);
    expect((await store.failures(from, to, { service: 'nope' })).signatures).toEqual([]);
    expect((await store.failures(from, to, { version: '9.9' })).signatures).toEqual([]);
  });

  it(`lists ${MAX_SIGNATURES_PER_TOOL} signatures per tool; the rest counts as other`, async () => {
    const store = await make();
    const letters = 'abcdefghijklmnopqrstuvwxy';
    await score(
      store,
      [...letters].map(l => fail('lookup', `failure ${l}`)),
    );
    await score(store, [fail('lookup', 'failure a')]);
    const got = await store.failures(...window());
    expect(got.signatures).toHaveLength(MAX_SIGNATURES_PER_TOOL);
    expect(got.signatures[0]).toMatchObject({ signature: 'failure a', count: 2 });
    expect(got.other).toEqual([
      { service: 'test-service', tool: 'lookup', count: 5, errors: 5, refused: 0 },
    ]);
  });

  it('a rescore takes back what the pass it replaced counted', async () => {
    const store = await make();
    const id = await score(store, [fail('get_weather', 'no station 1')]);
    await new Promise(r => setTimeout(r, 5));
    // The same trace once a late span came: a second call failed the same way.
    await score(
      store,
      [fail('get_weather', 'no station 1'), fail('get_weather', 'no station 2')],
      id,
    );
    const got = await store.failures(...window());
    expect(got.signatures.map(s => [s.signature, s.count, s.exampleTraceIds])).toEqual([
      ['no station <n>', 2, [id]],
    ]);
    expect((await store.tools(...window())).tools[0]).toMatchObject({ calls: 2, errors: 2 });
  });
});

describe('failure signatures in Redis', () => {
  it('are kept per minute beside the counters, bounded and expiring with them, and read by any process', async () => {
    const prefix = testPrefix();
    const writer = await stores.redis!(prefix);
    const errors = Array.from({ length: 30 }, (_, i) =>
      fail(`tool_${i}`, `${'x'.repeat(190)} ${i}`),
    );
    for (let i = 0; i < 20; i++) await score(writer, errors);
    await writer.close();
    const redis = redisFor(prefix);
    closers.push(() => redis.cleanup());
    await whenReady(redis.commands);
    const keys = await redis.commands.keys(`${prefix}:results:{r}:f:*`);
    expect(keys.length).toBeGreaterThan(0);
    for (const key of keys) {
      const ttl = await redis.commands.pttl(key);
      expect(ttl).toBeGreaterThan(retention.retentionMs);
      expect(ttl).toBeLessThanOrEqual(retention.retentionMs + 60_000);
      for (const value of Object.values(await redis.commands.hgetall(key)))
        expect(value.length).toBeLessThan(MAX_MINUTE_CHARS + 30 * 400);
    }
    const reader = createRedisResultsStore(redis.commands, prefix, retention);
    const got = await reader.failures(...window());
    expect(got.signatures).toHaveLength(30);
    expect(got.signatures.every(s => s.count === 20 && s.exampleTraceIds.length === 3)).toBe(true);
  });
});
