import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { createRedisConnection, whenReady } from '../../src/redis/redis-connection.js';
import { RedisSessionStore, type SessionStoreBounds } from '../../src/redis/redis-session-store.js';
import { sessionKeys } from '../../src/redis/session-keys.js';
import { childSpans } from '../helpers/child-spans.js';
import { traceId } from '../helpers/otlp-json-builder.js';
import { startRedisServer } from '../helpers/redis-server.js';

/**
 * The bullmq driver's sessions on a real Redis: a turn after every key of its session's parts is
 * gone (their life) opens the next part, which continues the cut the latest part had (`:seen`
 * keeps it with the part's number), not `max_age` whatever it was; a `:seen` of the previous
 * release (the number alone) still reads as that number, continuing `max_age`.
 */
const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

const BOUNDS: SessionStoreBounds = {
  idleMs: 10_000,
  maxTraces: 2,
  maxAgeMs: 60_000,
  maxSessionBytes: 1_000_000,
  maxBytes: 10_000_000,
  lifeMs: 120_000,
};

async function store() {
  const server = await startRedisServer();
  closers.push(() => server.stop());
  const commands = createRedisConnection(server.url, 'commands');
  closers.push(() => commands.quit());
  await whenReady(commands);
  const probe = new Redis(server.url);
  closers.push(() => probe.quit());
  return { sessions: new RedisSessionStore(commands, 'p', BOUNDS, () => 1_000), probe };
}

const tagged = { opens: true, ends: false };
const spans = (t: number) => childSpans(t, ['root', 'tool']);

describe("a part opened after its session's keys are gone (bullmq, Redis)", () => {
  it('continues the cut the latest part had (max_traces), and reads the previous release’s :seen', async () => {
    const { sessions, probe } = await store();
    const keys = sessionKeys('p', 's-1');
    await sessions.add('s-1', traceId(1), spans(1), 1_000, tagged);
    const cut = await sessions.add('s-1', traceId(2), spans(2), 2_000, tagged);
    expect(cut).toMatchObject({ part: 1, cut: 'max_traces' });
    // Part 1's keys reach the end of their life; `:seen` outlives them.
    expect(await probe.del(keys.base)).toBe(1);
    const later = await sessions.add('s-1', traceId(3), spans(3), 500_000, tagged);
    expect(later).toMatchObject({ outcome: 'added', part: 2 });
    expect((await sessions.read('s-1', 2))?.continues).toBe('max_traces');

    // The previous release wrote the number alone: read as that part, continuing max_age.
    await probe.del(keys.base, keys.part(2));
    await probe.set(`${keys.base}:seen`, '2');
    const upgraded = await sessions.add('s-1', traceId(4), spans(4), 900_000, tagged);
    expect(upgraded).toMatchObject({ outcome: 'added', part: 3 });
    expect((await sessions.read('s-1', 3))?.continues).toBe('max_age');
  });
});
