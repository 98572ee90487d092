import type { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createRedisConnection,
  whenReady,
  type RedisClient,
} from '../../src/redis/redis-connection.js';
import {
  createRedisSchemaRegistry,
  schemaRegistryKeys,
} from '../../src/redis/redis-schema-registry.js';
import { createMemorySchemaRegistry } from '../../src/score/schemas/memory-schema-registry.js';
import {
  type LearnedSchema,
  type SchemaRegistry,
  type SchemaRegistryLimits,
} from '../../src/score/schemas/schema-registry.js';
import { clusterForTests } from '../helpers/redis-cluster.js';
import { redisFor, testPrefix } from '../helpers/redis.js';
import { startRedisServer } from '../helpers/redis-server.js';

/**
 * The schema registry's contract, on both implementations (memory; Redis, one server and a
 * 3-master cluster): version slots, the latest schema winning, the TTL, and every bound held
 * against hostile traffic, measured in what is kept (entries, characters, Redis keys and bytes).
 */
const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});
/** One 3-master cluster for the file's cluster tests, formed before them. */
const cluster = clusterForTests({ masters: 3 });

type Limits = SchemaRegistryLimits;

/** A registry, and what it keeps: services, entries, characters of schema text. */
interface Subject {
  registry: SchemaRegistry;
  kept(): Promise<{ services: number; entries: number; chars: number; keys?: number }>;
}

async function redisSubject(redis: RedisClient, prefix: string, limits: Limits): Promise<Subject> {
  const keys = schemaRegistryKeys(prefix);
  const registry = createRedisSchemaRegistry(redis, prefix, limits);
  return {
    registry,
    async kept() {
      const services = await redis.zrange(keys.services, 0, -1);
      let entries = 0;
      let chars = 0;
      let keyCount = (await redis.exists(keys.services)) ? 1 : 0;
      for (const s of services) {
        const texts = await redis.hgetall(keys.texts(s));
        entries += Object.keys(texts).length;
        chars += Object.values(texts).reduce((n, t) => n + t.length, 0);
        keyCount += await redis.exists(keys.texts(s), keys.entries(s));
      }
      return { services: services.length, entries, chars, keys: keyCount };
    },
  };
}

const subjects: Record<string, (limits?: Limits) => Promise<Subject>> = {
  memory: limits => {
    const registry = createMemorySchemaRegistry(limits);
    return Promise.resolve({ registry, kept: () => Promise.resolve(registry.size()) });
  },
  redis: async (limits = {}) => {
    const prefix = testPrefix();
    const redis = redisFor(prefix);
    closers.push(() => redis.cleanup());
    await whenReady(redis.commands);
    return redisSubject(redis.commands, prefix, limits);
  },
  'redis cluster': async (limits = {}) => {
    const commands = createRedisConnection({ clusterNodes: cluster().nodes }, 'commands');
    closers.push(async () => commands.disconnect());
    await whenReady(commands, 5000);
    return redisSubject(commands, testPrefix(), limits);
  },
};

const T0 = 1_767_225_600_000;
const TRACE_A = 'a'.repeat(32);
const TRACE_B = 'b'.repeat(32);

function schema(
  tool: string,
  traceId: string,
  at: number,
  text = '{"type":"object"}',
): LearnedSchema {
  return { tool, name: tool, text, traceId, seenAtUnixMs: at };
}

describe.each(Object.keys(subjects))('schema registry (%s)', kind => {
  const make = subjects[kind]!;

  it("reads a version's own slot for a trace with a version, and the latest of any version without one", async () => {
    const { registry } = await make();
    await registry.put('shop', '1.0', [schema('get_price', TRACE_A, T0, '{"title":"v1"}')], T0);
    await registry.put(
      'shop',
      '2.0',
      [schema('get_price', TRACE_B, T0 + 1000, '{"title":"v2"}')],
      T0 + 1000,
    );
    const at = T0 + 2000;
    const text = async (version: string) =>
      (await registry.get('shop', version, ['get_price'], at)).get('get_price')?.text;
    expect(await text('1.0')).toBe('{"title":"v1"}');
    expect(await text('2.0')).toBe('{"title":"v2"}');
    expect(await text('')).toBe('{"title":"v2"}');
    expect(await text('3.0')).toBeUndefined();
    expect((await registry.get('other', '', ['get_price'], at)).size).toBe(0);
    expect(await registry.get('shop', '1.0', ['get_price'], at)).toEqual(
      new Map([
        [
          'get_price',
          {
            tool: 'get_price',
            name: 'get_price',
            text: '{"title":"v1"}',
            traceId: TRACE_A,
            seenAtUnixMs: T0,
          },
        ],
      ]),
    );
  });

  it('keeps the latest schema of a slot, forgets one not seen within the TTL, and lists the latest per tool', async () => {
    const { registry } = await make({ ttlMs: 60_000 });
    await registry.put('shop', '', [schema('a', TRACE_A, T0), schema('b', TRACE_A, T0)], T0);
    await registry.put(
      'shop',
      '',
      [schema('a', TRACE_B, T0 + 30_000, '{"title":"new"}')],
      T0 + 30_000,
    );
    const at = T0 + 45_000;
    const found = await registry.get('shop', '', ['a', 'b'], at);
    expect(found.get('a')).toMatchObject({ traceId: TRACE_B, text: '{"title":"new"}' });
    expect(found.get('b')).toMatchObject({ traceId: TRACE_A });
    expect(
      (await registry.latest(['shop', 'none'], at)).sort((x, y) => x.tool.localeCompare(y.tool)),
    ).toEqual([
      { service: 'shop', tool: 'a', name: 'a', traceId: TRACE_B, seenAtUnixMs: T0 + 30_000 },
      { service: 'shop', tool: 'b', name: 'b', traceId: TRACE_A, seenAtUnixMs: T0 },
    ]);
    // Past the TTL of b's only sighting: gone, a still there.
    const later = T0 + 70_000;
    expect([...(await registry.get('shop', '', ['a', 'b'], later)).keys()]).toEqual(['a']);
    expect((await registry.latest(['shop'], later)).map(e => e.tool)).toEqual(['a']);
  });

  it('holds its bounds against a flood of services, tools and large schemas, dropping what was seen longest ago', async () => {
    const limits = {
      maxServices: 5,
      maxEntriesPerService: 8,
      maxCharsPerService: 4000,
    };
    const subject = await make(limits);
    const big = JSON.stringify({ type: 'object', description: 'x'.repeat(1500) });
    // 40 services × 20 tools, half with versions (two slots each), schemas of ~1.5 KB.
    for (let s = 0; s < 40; s++) {
      const tools = Array.from({ length: 20 }, (_, t) => schema(`tool${t}`, TRACE_A, T0 + s, big));
      await subject.registry.put(`svc${s}`, s % 2 ? `v${s}` : '', tools, T0 + s);
      const kept = await subject.kept();
      expect(kept.services).toBeLessThanOrEqual(limits.maxServices);
      expect(kept.entries).toBeLessThanOrEqual(limits.maxServices * limits.maxEntriesPerService);
      expect(kept.chars).toBeLessThanOrEqual(limits.maxServices * limits.maxCharsPerService);
      // Redis: two hashes per service and the services' index, nothing else.
      if (kept.keys !== undefined) expect(kept.keys).toBeLessThanOrEqual(2 * kept.services + 1);
    }
    const at = T0 + 100;
    // The newest services are kept, each with its last tools within the character bound.
    expect((await subject.registry.get('svc0', '', ['tool19'], at)).size).toBe(0);
    const last = await subject.registry.get('svc38', '', ['tool19', 'tool0'], at);
    expect([...last.keys()]).toEqual(['tool19']);
    expect((await subject.kept()).services).toBe(5);
  });
});

describe('schema registry (redis) work', () => {
  it('puts with one command and gets with one round trip, whatever the number of tools', async () => {
    // A server of its own: MONITOR on the shared one saw the other test files' commands, and
    // ioredis failed with 'Command queue state error' when one came before MONITOR's OK.
    const server = await startRedisServer();
    closers.push(() => server.stop());
    const prefix = testPrefix();
    const commands = createRedisConnection(server.url, 'commands');
    closers.push(() => commands.quit());
    await whenReady(commands);
    const registry = createRedisSchemaRegistry(commands, prefix);
    const sent: string[] = [];
    const monitor = await (commands as Redis).monitor();
    closers.push(async () => monitor.disconnect());
    monitor.on('monitor', (_time: string, args: string[], source: string) => {
      // Sent by this client, not run inside the script.
      if (source.includes('lua')) return;
      if (args.some(a => typeof a === 'string' && a.startsWith(`${prefix}:schemas`)))
        sent.push(String(args[0]).toLowerCase());
    });
    const tools = Array.from({ length: 30 }, (_, t) => schema(`tool${t}`, TRACE_A, T0));
    await registry.put('shop', '1.0', tools, T0);
    await registry.get(
      'shop',
      '1.0',
      tools.map(t => t.tool),
      T0 + 1,
    );
    await new Promise(r => setTimeout(r, 200));
    // EVALSHA (or EVAL on first use), then MULTI/HMGET×2/EXEC.
    expect(sent.filter(c => c.startsWith('eval')).length).toBe(1);
    expect(sent.filter(c => c === 'hmget').length).toBe(2);
    expect(sent.filter(c => c === 'hset').length).toBe(0); // inside the script, not sent
  });
});
