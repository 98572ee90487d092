import { afterEach, describe, expect, it } from 'vitest';
import { isSpanscoreError } from '../../src/errors/spanscore-error.js';
import type { SpanDigest } from '../../src/ingest/span-digest.js';
import { classifyFailure } from '../../src/queue/classify-failure.js';
import { createSessionQueue } from '../../src/queue/session-queue.js';
import { whenReady } from '../../src/redis/redis-connection.js';
import { sessionKeys } from '../../src/redis/session-keys.js';
import { childSpans } from '../helpers/child-spans.js';
import { traceId } from '../helpers/otlp-json-builder.js';
import { redisFor, testPrefix } from '../helpers/redis.js';

/**
 * What `sessions.add` (the bullmq driver's session queue, on the real Redis) rejects with, and so
 * what the trace job does: a Redis failure (an ioredis `ReplyError`, a closed connection) is
 * `SS_REDIS_FAILED`, retried; any other error (the store's own bug, here a `TypeError` from
 * encoding a span that is not one) is `SS_INTERNAL_ERROR`, failed at once: retrying cannot help.
 */
const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

async function sessionQueue() {
  const redis = redisFor(testPrefix());
  closers.push(redis.cleanup);
  await whenReady(redis.commands, 10_000);
  const sessions = createSessionQueue({
    redis: redis.commands,
    connection: redis.bullmq(),
    prefix: redis.prefix,
    policy: { idleMs: 600_000, maxTraces: 50, maxAgeMs: 86_400_000 },
    bytes: { maxSessionBytes: 1_048_576, maxBytes: 33_554_432 },
    timing: { attempts: 3, backoffMs: 1000, lockDurationMs: 30_000, stalledIntervalMs: 30_000 },
  });
  closers.push(() => sessions.close());
  return { redis, sessions };
}

const turnOf = (n: number) => ({
  sessionId: 'conv-k',
  traceId: traceId(n),
  ends: false,
  tagged: true,
});

/** What `add` rejected with: its code and what the retry classifier makes of it. */
async function rejection(added: Promise<unknown>) {
  const error = await added.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isSpanscoreError(error)).toBe(true);
  const e = error as Error & { code: string; cause: unknown };
  return { code: e.code, action: classifyFailure(e).action, cause: e.cause, message: e.message };
}

describe('sessions.add: which failures are Redis failures', () => {
  it('a Redis reply error is SS_REDIS_FAILED, retried', async () => {
    const { redis, sessions } = await sessionQueue();
    await redis.commands.set(sessionKeys(redis.prefix, 'conv-k').base, 'not a hash');
    const got = await rejection(sessions.add(turnOf(1), childSpans(1, ['root'])));
    expect(got).toMatchObject({ code: 'SS_REDIS_FAILED', action: 'retry' });
    expect(got.message).toMatch(/WRONGTYPE/);
  });

  it('a closed connection is SS_REDIS_FAILED, retried', async () => {
    const { redis } = await sessionQueue();
    const closed = redisFor(redis.prefix);
    await whenReady(closed.commands, 10_000);
    await closed.commands.quit();
    const other = createSessionQueue({
      redis: closed.commands,
      connection: redis.bullmq(),
      prefix: redis.prefix,
      policy: { idleMs: 600_000, maxTraces: 50, maxAgeMs: 86_400_000 },
      bytes: { maxSessionBytes: 1_048_576, maxBytes: 33_554_432 },
      timing: { attempts: 3, backoffMs: 1000, lockDurationMs: 30_000, stalledIntervalMs: 30_000 },
    });
    closers.push(() => other.close());
    const got = await rejection(other.add(turnOf(2), childSpans(2, ['root'])));
    expect(got).toMatchObject({ code: 'SS_REDIS_FAILED', action: 'retry' });
    expect(got.message).toMatch(/Connection is closed/);
  });

  it("the store's own bug (a TypeError) is not a Redis failure: SS_INTERNAL_ERROR, not retried", async () => {
    const { redis, sessions } = await sessionQueue();
    // A span digest without its fields: encoding it throws before any command is sent.
    const broken = [{ name: 'root' } as unknown as SpanDigest];
    const got = await rejection(sessions.add(turnOf(3), broken));
    expect(got.cause).toBeInstanceOf(TypeError);
    expect(got).toMatchObject({ code: 'SS_INTERNAL_ERROR', action: 'fail' });
    expect(got.message).toMatch(/adding trace .* to its session: TypeError/);
    // Nothing was written for the session.
    expect(await redis.commands.exists(sessionKeys(redis.prefix, 'conv-k').base)).toBe(0);
  });
});
