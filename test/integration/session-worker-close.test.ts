import { afterEach, expect, it } from 'vitest';
import { Queue } from 'bullmq';
import { createSessionQueue, type SessionJobTiming } from '../../src/queue/session-queue.js';
import { sessionQueueLocation } from '../../src/queue/queue-shards.js';
import { createSessionWorker } from '../../src/queue/session-worker.js';
import { whenReady } from '../../src/redis/redis-connection.js';
import { childSpans } from '../helpers/child-spans.js';
import { traceId } from '../helpers/otlp-json-builder.js';
import { redisFor, testPrefix, waitFor } from '../helpers/redis.js';

/**
 * The session worker's `close` (the bullmq driver's shutdown) waits for the end of a job BullMQ
 * failed itself (stalled past `maxStalledCount`), on the real Redis: that end runs from BullMQ's
 * `failed` event, outside any job, and was left running when `close` resolved, so that the
 * driver then closed its connections under it and the part's end was lost. Here the caller's end
 * makes a Redis round trip once the worker has said it closed: `close` resolves after it.
 */
const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

it('close waits for the end of a job BullMQ failed, its worker stalled', async () => {
  const redis = redisFor(testPrefix());
  closers.push(redis.cleanup);
  await whenReady(redis.commands, 10_000);
  const policy = { idleMs: 50, maxTraces: 50, maxAgeMs: 86_400_000 };
  const bytes = { maxSessionBytes: 1_048_576, maxBytes: 33_554_432 };
  const timing: SessionJobTiming = {
    attempts: 3,
    backoffMs: 10,
    lockDurationMs: 30_000,
    stalledIntervalMs: 200,
  };
  const sessions = createSessionQueue({
    redis: redis.commands,
    connection: redis.bullmq(),
    prefix: redis.prefix,
    policy,
    bytes,
    timing,
  });
  closers.push(() => sessions.close());
  // Each pass hangs until the test lets it go.
  const hung: Array<() => void> = [];
  let passes = 0;
  let ends = 0;
  let closed!: () => void;
  const workerClosed = new Promise<void>(resolve => (closed = resolve));
  const worker = createSessionWorker({
    redis: redis.commands,
    connection: redis.bullmq(),
    prefix: redis.prefix,
    policy,
    bytes,
    timing,
    concurrency: 4,
    process: () => {
      passes++;
      return new Promise<void>(resolve => hung.push(resolve));
    },
    onLastAttemptFailed: async () => {
      await workerClosed;
      await redis.commands.ping();
      ends++;
    },
  });
  worker.on('closed', () => closed());
  closers.push(() => {
    hung.splice(0).forEach(go => go());
    return worker.close();
  });
  const at = sessionQueueLocation(redis.prefix, false);
  const queue = new Queue(at.name, { connection: redis.bullmq(), prefix: at.prefix });
  closers.push(() => queue.close());
  const takeLock = async (): Promise<void> => {
    const [job] = await queue.getActive();
    expect(await redis.commands.del(`${at.prefix}:${at.name}:${job!.id}:lock`)).toBe(1);
  };
  let closing: Promise<void> | undefined;
  worker.on('failed', () => {
    // Shutdown as BullMQ fails the job: the hung passes let go, so that close waits for no job.
    hung.splice(0).forEach(go => go());
    closing ??= worker.close();
  });

  await sessions.add(
    { sessionId: 'conv-c', traceId: traceId(1), ends: false, tagged: true },
    childSpans(1, ['root']),
  );
  await waitFor(() => passes === 1, 'the pass under way', 20_000);
  await takeLock();
  await waitFor(() => passes === 2, 'the stalled job taken again', 20_000);
  await takeLock();
  await waitFor(() => closing !== undefined, 'BullMQ failing the job', 20_000);
  await closing;
  expect(ends).toBe(1);
}, 60_000);
