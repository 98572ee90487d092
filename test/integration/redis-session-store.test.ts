import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { createRedisConnection, whenReady } from '../../src/redis/redis-connection.js';
import { RedisSessionStore } from '../../src/redis/redis-session-store.js';
import { childSpans } from '../helpers/child-spans.js';
import { traceId } from '../helpers/otlp-json-builder.js';
import { commandCalls } from '../helpers/command-calls.js';
import { startRedisServer } from '../helpers/redis-server.js';

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

/** A session store on a Redis server of the test's own (its command counts are the test's alone). */
async function store(limits: { maxTraces: number; maxAgeMs: number }) {
  const server = await startRedisServer();
  closers.push(() => server.stop());
  const commands = createRedisConnection(server.url, 'commands');
  closers.push(() => commands.quit());
  await whenReady(commands);
  const probe = new Redis(server.url);
  closers.push(() => probe.quit());
  return { sessions: new RedisSessionStore(commands, 'p', limits), probe };
}

const KEY = 'p:session:{s-1}';

describe('RedisSessionStore on a real Redis', () => {
  it('opens a session only for a tagged trace, then takes later traces tagged or not, up to maxTraces', async () => {
    const { sessions, probe } = await store({ maxTraces: 2, maxAgeMs: 60_000 });
    const spans = (t: number) => childSpans(t, ['root', 'tool']);

    // Untagged, and no session to join: nothing is kept, and the look costs the script one HGET.
    const before = await commandCalls(probe);
    expect(await sessions.add('s-1', traceId(1), spans(1), 1_000, false)).toEqual({
      outcome: 'no_session',
      traces: 0,
      firstAtMs: 0,
    });
    const after = await commandCalls(probe);
    const delta = (command: string) => (after.get(command) ?? 0) - (before.get(command) ?? 0);
    expect(delta('hget')).toBe(1);
    for (const command of ['hlen', 'hexists', 'hset', 'pexpire']) expect(delta(command)).toBe(0);
    expect(await probe.exists(KEY)).toBe(0);

    // Tagged: opens it, expiring maxAgeMs after its first trace.
    expect(await sessions.add('s-1', traceId(2), spans(2), 2_000, true)).toEqual({
      outcome: 'added',
      traces: 1,
      firstAtMs: 2_000,
    });
    const ttl = await probe.pttl(KEY);
    expect(ttl).toBeGreaterThan(50_000);
    expect(ttl).toBeLessThanOrEqual(60_000);

    // A later turn joins untagged; the same trace again replaces itself; a third is refused.
    expect(await sessions.add('s-1', traceId(3), spans(3), 3_000, false)).toEqual({
      outcome: 'added',
      traces: 2,
      firstAtMs: 2_000,
    });
    expect(await sessions.add('s-1', traceId(3), spans(3), 3_500, false)).toEqual({
      outcome: 'added',
      traces: 2,
      firstAtMs: 2_000,
    });
    expect(await sessions.add('s-1', traceId(4), spans(4), 4_000, true)).toEqual({
      outcome: 'full',
      traces: 2,
      firstAtMs: 2_000,
    });

    const read = await sessions.read('s-1');
    expect(read?.firstAtMs).toBe(2_000);
    expect(read?.traces.map(t => t.traceId).sort()).toEqual([traceId(2), traceId(3)].sort());
    expect(
      read?.traces.every(
        t =>
          t.spans
            .map(s => s.name)
            .sort()
            .join() === 'root,tool',
      ),
    ).toBe(true);
    expect(await sessions.read('s-2')).toBeUndefined();
  });
});
