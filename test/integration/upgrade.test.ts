/**
 * Rolling upgrade: a worker of this release scores what a receiver of the previous span-buffer
 * layout (version 1, commit 9f66229: a list and a hash per trace) left in Redis. The fixture was
 * written by that release's own code (test/fixtures/upgrade/capture-v1-buffer.ts): three agent
 * runs, each in two requests, buffered while no worker ran, and their BullMQ jobs.
 */
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { SpanDigest } from '../../src/ingest/span-digest.js';
import {
  createBullmqTraceSink,
  SCORE_TRACE_QUEUE,
} from '../../src/queue/bullmq-trace-assembler.js';
import { createScoreTraceWorker } from '../../src/queue/score-trace.processor.js';
import type { TraceJobData } from '../../src/queue/trace-job.js';
import { whenReady } from '../../src/redis/redis-connection.js';
import { bufferKeyOf } from '../../src/redis/redis-span-buffer.js';
import { redisFor, testPrefix, waitFor } from '../helpers/redis.js';
import { CONFIG_DEFAULTS } from '../helpers/config-defaults.js';
import {
  bullmqSinkLimits,
  bullmqTraceOptions,
  bullmqWorkerLimits,
} from '../../src/queue/bullmq-queue-driver.js';

interface V1Fixture {
  traces: Array<{ traceId: string; testCaseId: string; names: string[] }>;
  buffer: Array<{ key: string; list?: string[]; hash?: Record<string, string> }>;
  jobs: TraceJobData[];
}

const fixture = JSON.parse(
  readFileSync(new URL('../fixtures/upgrade/buffer-v1.json', import.meta.url), 'utf8'),
) as V1Fixture;

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

describe('a rolling upgrade from span buffer layout 1', () => {
  it('scores every trace a receiver of the previous release buffered, each with all its spans, once', async () => {
    const prefix = testPrefix();
    const redis = redisFor(prefix);
    cleanups.push(redis.cleanup);
    await whenReady(redis.commands);
    // What the old receiver left: its keys (under this test's prefix) and its jobs.
    for (const { key, list, hash } of fixture.buffer) {
      if (list)
        await redis.commands.rpush(`${prefix}${key}`, ...list.map(b => Buffer.from(b, 'base64')));
      if (hash) await redis.commands.hset(`${prefix}${key}`, hash);
      await redis.commands.pexpire(`${prefix}${key}`, 120_000);
    }
    const policy = { settleMs: 100, maxWaitMs: 30_000 };
    const sink = createBullmqTraceSink({
      ...bullmqTraceOptions(CONFIG_DEFAULTS),
      ...bullmqSinkLimits(CONFIG_DEFAULTS),
      prefix,
      policy,
      redis: redis.commands,
      queueConnection: redis.bullmq(),
    });
    cleanups.push(() => sink.close());
    for (const data of fixture.jobs) await sink.queue.add(SCORE_TRACE_QUEUE, data);

    const scored: Array<{ traceId: string; names: string[] }> = [];
    const worker = createScoreTraceWorker({
      ...bullmqTraceOptions(CONFIG_DEFAULTS),
      ...bullmqWorkerLimits(CONFIG_DEFAULTS),
      prefix,
      policy,
      redis: redis.commands,
      workerConnection: redis.bullmq(),
      process: (traceId: string, spans: SpanDigest[]) => {
        scored.push({ traceId, names: spans.map(s => s.name).sort() });
        return Promise.resolve();
      },
    });
    cleanups.push(() => worker.close());

    await waitFor(() => scored.length === fixture.traces.length, 'the buffered traces', 15_000);
    expect(scored.sort((a, b) => a.traceId.localeCompare(b.traceId))).toEqual(
      fixture.traces
        .map(({ traceId, names }) => ({ traceId, names }))
        .sort((a, b) => a.traceId.localeCompare(b.traceId)),
    );
    // Moved, not copied: the old keys are gone; the trace is marked scored in its new hash.
    for (const { traceId } of fixture.traces) {
      expect(await redis.commands.exists(`${prefix}:trace:{${traceId}}:spans`)).toBe(0);
      expect(await redis.commands.exists(`${prefix}:trace:{${traceId}}:meta`)).toBe(0);
      await waitFor(
        async () => (await redis.commands.hexists(bufferKeyOf(prefix, traceId), 'scored')) === 1,
        'the scored mark',
      );
    }
    // Scored once: nothing is scored again later.
    await new Promise(r => setTimeout(r, 500));
    expect(scored).toHaveLength(fixture.traces.length);
  });
});
