import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { createRedisConnection, whenReady } from '../../src/redis/redis-connection.js';
import { createSessionQueue } from '../../src/queue/session-queue.js';
import { childSpans } from '../helpers/child-spans.js';
import { commandCalls } from '../helpers/command-calls.js';
import { traceId } from '../helpers/otlp-json-builder.js';
import { startRedisServer } from '../helpers/redis-server.js';

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

/**
 * The BullMQ driver's Redis work per session turn, counted (not timed), on a Redis server of the
 * test's own: what a trace worker adds after scoring a trace that carries a session id. Traces
 * without a session id cost none of it (`redis-commands-per-trace` holds those at 12.5).
 */
const SESSIONS = 20;
const TURNS = 5;
/**
 * Measured 27.6 a turn over sessions of 5 turns (27.2 before a session kept its latest part's
 * number past its parts' life; 20.2 before sessions had parts and a byte total): a turn joining
 * its part costs its script and BullMQ's rescheduling as before, plus the total's script
 * (`EVALSHA`, the expired parts' `ZRANGEBYSCORE`, `HINCRBY`, `INCRBY`, two `ZADD`); opening a
 * part costs one script call more on each slot (admission), and a `SET` of the part's number (a
 * new session, a `GET` of it too: 2 commands a session, 0.4 a turn here).
 */
const BUDGET = 27.9;

async function queue() {
  const server = await startRedisServer();
  closers.push(() => server.stop());
  const commands = createRedisConnection(server.url, 'commands');
  const connection = createRedisConnection(server.url, 'bullmq');
  closers.push(
    () => commands.quit(),
    () => connection.quit(),
  );
  await whenReady(commands);
  const probe = new Redis(server.url);
  closers.push(() => probe.quit());
  const sessions = createSessionQueue({
    redis: commands,
    connection,
    prefix: 'p',
    policy: { idleMs: 600_000, maxTraces: 50, maxAgeMs: 86_400_000 },
    bytes: { maxSessionBytes: 1_048_576, maxBytes: 33_554_432 },
    timing: { attempts: 3, backoffMs: 1000, lockDurationMs: 30_000, stalledIntervalMs: 30_000 },
  });
  closers.push(() => sessions.close());
  // BullMQ loads its scripts on the first add: not counted.
  await sessions.add(
    { sessionId: 'warm-up', traceId: traceId(1), ends: false, tagged: true },
    childSpans(1, ['root']),
  );
  return { sessions, probe };
}

const perTurn = (before: Map<string, number>, after: Map<string, number>, turns: number) => {
  let total = 0;
  const detail: string[] = [];
  for (const [name, calls] of after) {
    const n = calls - (before.get(name) ?? 0);
    if (n === 0 || name === 'info') continue;
    total += n;
    detail.push(`${name} ${(n / turns).toFixed(2)}`);
  }
  return { total: total / turns, detail: detail.join(', ') };
};

describe('bullmq driver: Redis commands per session turn', () => {
  it('counts a held session’s turns, and a turn no session test case opened', async () => {
    const { sessions, probe } = await queue();
    let n = 0x100;
    const before = await commandCalls(probe);
    for (let s = 0; s < SESSIONS; s++)
      for (let t = 0; t < TURNS; t++) {
        const id = traceId(n++);
        const { outcome } = await sessions.add(
          { sessionId: `conv-${s}`, traceId: id, ends: false, tagged: true },
          childSpans(n, ['root', 'tool', 'tool']),
        );
        expect(outcome).toBe('added');
      }
    const held = perTurn(before, await commandCalls(probe), SESSIONS * TURNS);
    console.log(`commands per held session turn: ${held.total.toFixed(2)}: ${held.detail}`);

    const beforeUntagged = await commandCalls(probe);
    for (let s = 0; s < SESSIONS; s++) {
      const { outcome } = await sessions.add(
        { sessionId: `other-${s}`, traceId: traceId(n++), ends: false, tagged: false },
        childSpans(n, ['root']),
      );
      expect(outcome).toBe('no_session');
    }
    const untagged = perTurn(beforeUntagged, await commandCalls(probe), SESSIONS);
    console.log(`commands per untagged turn: ${untagged.total.toFixed(2)}: ${untagged.detail}`);
    expect(untagged.total).toBe(2);
    expect(held.total, held.detail).toBeLessThanOrEqual(BUDGET);
    // Real work: every turn ran its session's script and the total's, and rescheduled its job.
    expect(held.detail).toMatch(/evalsha 3\.20/);
  }, 30_000);
});
