import { afterEach, describe, expect, it } from 'vitest';
import { SpanscoreError } from '../../src/errors/spanscore-error.js';
import type { SpanDigest } from '../../src/ingest/span-digest.js';
import {
  createBullmqTraceSink,
  type BullmqTraceSink,
} from '../../src/queue/bullmq-trace-assembler.js';
import { createRedisConnection } from '../../src/redis/redis-connection.js';
import { createScoreTraceWorker } from '../../src/queue/score-trace.processor.js';
import { bufferKeyOf, RedisSpanBuffer } from '../../src/redis/redis-span-buffer.js';
import { startWorkerHeartbeat } from '../../src/redis/worker-heartbeat.js';
import { childSpans } from '../helpers/child-spans.js';
import { traceId } from '../helpers/otlp-json-builder.js';
import { redisFor, testPrefix, waitFor } from '../helpers/redis.js';
import { CONFIG_DEFAULTS } from '../helpers/config-defaults.js';
import {
  bullmqSinkLimits,
  bullmqTraceOptions,
  bullmqWorkerLimits,
} from '../../src/queue/bullmq-queue-driver.js';

const policy = { settleMs: 300, maxWaitMs: 1500 };

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

function driver(
  options: {
    rescoreLateSpans?: boolean;
    maxQueuedTraces?: number;
    startWorker?: boolean;
    unscoredTtlMs?: number;
    admission?: { maxBacklogAgeMs?: number; workerAbsenceMs?: number };
    maxSpansPerTrace?: number;
    /** Jobs scored at once. @defaultValue the config's `worker.concurrency` */
    concurrency?: number;
    process?: (
      id: string,
      s: SpanDigest[],
      attempt: { exportRetry: boolean; notes: Array<{ code: string; message: string }> },
    ) => Promise<void>;
  } = {},
) {
  const prefix = testPrefix();
  const redis = redisFor(prefix);
  cleanups.push(redis.cleanup);
  const processed: Array<{ traceId: string; names: string[] }> = [];
  const late: Array<[string, number]> = [];
  const process =
    options.process ??
    ((id: string, list: SpanDigest[]) => (
      processed.push({ traceId: id, names: list.map(s => s.name).sort() }),
      Promise.resolve()
    ));
  const shared = {
    ...bullmqTraceOptions(CONFIG_DEFAULTS),
    prefix,
    policy,
    rescoreLateSpans: options.rescoreLateSpans ?? false,
    ...(options.unscoredTtlMs && { unscoredTtlMs: options.unscoredTtlMs }),
    ...(options.maxSpansPerTrace && { maxSpansPerTrace: options.maxSpansPerTrace }),
  };
  const expired: Array<[string, string]> = [];
  const sink: BullmqTraceSink = createBullmqTraceSink({
    ...shared,
    redis: redis.commands,
    queueConnection: redis.bullmq(),
    ...bullmqSinkLimits(CONFIG_DEFAULTS),
    backoffMs: 100,
    ...(options.maxQueuedTraces && { maxQueuedTraces: options.maxQueuedTraces }),
    ...(options.admission && {
      admission: { ...CONFIG_DEFAULTS.admission, ...options.admission },
    }),
  });
  cleanups.push(() => sink.close());
  const startWorker = () => {
    const worker = createScoreTraceWorker({
      ...shared,
      redis: redis.commands,
      workerConnection: redis.bullmq(),
      ...bullmqWorkerLimits(CONFIG_DEFAULTS),
      ...(options.concurrency && { concurrency: options.concurrency }),
      process,
      onLateSpans: (id, n) => late.push([id, n]),
      onExpired: (id, reason) => expired.push([id, reason]),
    });
    cleanups.push(() => worker.close());
    return worker;
  };
  if (options.startWorker !== false) startWorker();
  return {
    sink,
    processed,
    late,
    expired,
    redis,
    prefix,
    startWorker,
    buffer: new RedisSpanBuffer(redis.commands, prefix, {
      unscoredTtlMs: 60_000,
      scoredTtlMs: 60_000,
    }),
  };
}

describe('bullmq driver on a real Redis', () => {
  it('scores a trace once when complete, with spans from every batch, in any order', async () => {
    const { sink, processed } = driver();
    await sink.accept(childSpans(1, ['tool-a']));
    await sink.accept(childSpans(1, ['tool-b', 'root']));
    await new Promise(r => setTimeout(r, 150));
    await sink.accept(childSpans(1, ['tool-c'])); // within the settle window: extends it
    await waitFor(() => processed.length === 1, 'the trace to be scored');
    expect(processed[0]).toEqual({
      traceId: traceId(1),
      names: ['root', 'tool-a', 'tool-b', 'tool-c'],
    });
    // Removed on completion; `processed` is filled inside the processor, just before that.
    await waitFor(async () => {
      const counts = await sink.queue.getJobCounts('completed', 'delayed', 'waiting', 'active');
      return Object.values(counts).every(n => n === 0);
    }, 'the jobs to be removed on completion');
    await new Promise(r => setTimeout(r, 500));
    expect(processed).toHaveLength(1);
  });

  it("queues one job per request for all its traces, and scores a trace held by two requests' jobs once", async () => {
    const { sink, processed, startWorker } = driver({ startWorker: false });
    await sink.accept([
      ...childSpans(30, ['root']),
      ...childSpans(31, ['root', 'b1']),
      ...childSpans(32, ['root']),
    ]);
    await sink.accept(childSpans(31, ['b2'])); // trace 31 is now in two jobs
    const delayed = await sink.queue.getDelayed();
    expect(delayed.map(job => job.data)).toEqual(
      expect.arrayContaining([
        { traceIds: [traceId(30), traceId(31), traceId(32)] },
        { traceIds: [traceId(31)] },
      ]),
    );
    expect(delayed).toHaveLength(2);
    startWorker();
    await waitFor(() => processed.length === 3, 'the three traces');
    await new Promise(r => setTimeout(r, 600)); // the second job is due, and must not rescore
    expect(processed.map(p => p.traceId).sort()).toEqual([traceId(30), traceId(31), traceId(32)]);
    expect(processed.find(p => p.traceId === traceId(31))!.names).toEqual(['b1', 'b2', 'root']);
    await waitFor(
      async () => (await sink.queue.getJobCounts('delayed', 'waiting', 'active')).delayed === 0,
      'both jobs to be done',
    );
  });

  it('closing, a worker finishes the job it scores and gives back the jobs it took ahead of its slots', async () => {
    // One scoring slot, and the first trace's scoring held open: the worker takes the other jobs
    // ahead (they would wait for the slot while deliveries run).
    let release!: () => void;
    const gate = new Promise<void>(resolve => (release = resolve));
    const scored: string[] = [];
    const { sink, startWorker } = driver({
      startWorker: false,
      concurrency: 1,
      process: async id => {
        scored.push(id);
        await gate;
      },
    });
    const ids = [70, 71, 72, 73, 74].map(t => traceId(t));
    for (let t = 70; t < 75; t++) await sink.accept(childSpans(t, ['root']));
    const first = startWorker();
    await waitFor(() => scored.length === 1, 'the first trace to be scoring');
    await waitFor(
      async () => (await sink.queue.getJobCounts('active')).active === ids.length,
      'the other jobs taken ahead',
    );
    const closed = first.close();
    release();
    await closed;
    // Only the job under way was scored; the others went back to the queue, none failed.
    expect(scored).toHaveLength(1);
    // Given back delayed (their traces' settle time): on a loaded host one may be due already.
    const counts = await sink.queue.getJobCounts('active', 'failed', 'waiting', 'delayed');
    expect([counts.active, counts.failed]).toEqual([0, 0]);
    expect(counts.waiting! + counts.delayed!).toBe(ids.length - 1);
    startWorker();
    await waitFor(() => scored.length === ids.length, 'the rest, by the next worker');
    expect([...scored].sort()).toEqual([...ids].sort());
  });

  it('a batch accepted twice (an exporter retrying a request that was stored) is scored with each span once', async () => {
    const { sink, processed, late } = driver();
    const batch = childSpans(12, ['root', 'tool-a']);
    await sink.accept(batch);
    await sink.accept(batch);
    await waitFor(() => processed.length === 1, 'the trace to be scored');
    expect(processed[0]!.names).toEqual(['root', 'tool-a']);
    await new Promise(r => setTimeout(r, 300));
    expect(late).toEqual([]); // the duplicates were scored (away), not left as late spans
  });

  it('scores a trace without a root at maxWaitMs, and keeps interleaved traces apart', async () => {
    const { sink, processed } = driver();
    const started = Date.now();
    const a = childSpans(2, ['root', 'a1']);
    await sink.accept([childSpans(3, ['orphan'])[0]!, a[1]!]);
    await sink.accept([a[0]!]);
    await waitFor(() => processed.length === 2, 'both traces', 5000);
    expect(processed.find(p => p.traceId === traceId(2))!.names).toEqual(['a1', 'root']);
    expect(processed.find(p => p.traceId === traceId(3))!.names).toEqual(['orphan']);
    expect(Date.now() - started).toBeGreaterThanOrEqual(policy.maxWaitMs);
  });

  it('counts late spans; with rescoreLateSpans the trace is scored again with all its spans', async () => {
    const off = driver();
    await off.sink.accept(childSpans(4, ['root']));
    await waitFor(() => off.processed.length === 1, 'first scoring');
    await off.sink.accept(childSpans(4, ['late']));
    expect(await off.buffer.lateCount(traceId(4))).toBe(1);
    await new Promise(r => setTimeout(r, 600));
    expect(off.processed).toHaveLength(1);

    const on = driver({ rescoreLateSpans: true });
    await on.sink.accept(childSpans(5, ['root']));
    await waitFor(() => on.processed.length === 1, 'first scoring');
    await on.sink.accept(childSpans(5, ['late']));
    await waitFor(() => on.processed.length === 2, 'the rescore');
    expect(on.processed.map(p => p.names)).toEqual([['root'], ['late', 'root']]);
  });

  it('retries an upstream failure with backoff; fails a bug at once', async () => {
    let calls = 0;
    const done: string[] = [];
    const { sink } = driver({
      process: id => {
        calls++;
        if (id === traceId(7)) return Promise.reject(new TypeError('a bug'));
        if (calls === 1)
          return Promise.reject(new SpanscoreError('SS_EXPORT_FAILED', 'backend down'));
        done.push(id);
        return Promise.resolve();
      },
    });
    await sink.accept(childSpans(6, ['root']));
    await waitFor(() => done.length === 1, 'the retried trace');
    expect(calls).toBe(2);
    await sink.accept(childSpans(7, ['root']));
    await waitFor(
      async () => (await sink.queue.getJob(traceId(7)))?.failedReason === 'a bug',
      'the job to fail',
    );
    expect((await sink.queue.getJob(traceId(7)))!.attemptsMade).toBe(1);
  });

  it('survives having no worker: spans wait in Redis and a worker started later scores them', async () => {
    const { sink, processed, startWorker, buffer } = driver({ startWorker: false });
    await sink.accept(childSpans(8, ['root', 'x']));
    // The trace's job waits in the queue for a worker (delayed: only workers promote delayed
    // jobs), and its spans wait in Redis.
    const counts = await sink.queue.getJobCounts('waiting', 'delayed', 'active');
    expect(counts).toEqual({ waiting: 0, delayed: 1, active: 0 });
    const held = await buffer.read(traceId(8));
    expect(held.spans.map(s => s.name).sort()).toEqual(['root', 'x']);
    startWorker();
    await waitFor(() => processed.length === 1, 'the late-started worker');
    expect(processed[0]!.names).toEqual(['root', 'x']);
  });

  it("keeps an unscored trace's spans for unscoredTtlMs, far past the late window, which starts once it is scored", async () => {
    const { sink, processed, startWorker, redis, prefix } = driver({ startWorker: false });
    await sink.accept(childSpans(9, ['root', 'x']));
    const key = bufferKeyOf(prefix, traceId(9));
    // Waiting for a worker: kept a day, not 2 × maxWaitMs + 60 s (63 s here) as before.
    expect(await redis.commands.pttl(key)).toBeGreaterThan(23 * 3_600_000);
    startWorker();
    await waitFor(() => processed.length === 1, 'the trace to be scored');
    await waitFor(
      async () => (await redis.commands.hexists(key, 'scored')) === 1,
      'the scored mark',
    );
    const ttl = await redis.commands.pttl(key);
    expect(ttl).toBeGreaterThan(55_000);
    expect(ttl).toBeLessThanOrEqual(2 * policy.maxWaitMs + 60_000);
  });

  it('reports a trace whose spans were gone when a worker took its job as expired, with the reason', async () => {
    const { sink, processed, expired, startWorker } = driver({
      startWorker: false,
      unscoredTtlMs: 400,
    });
    await sink.accept([...childSpans(10, ['root']), ...childSpans(11, ['root'])]);
    await new Promise(r => setTimeout(r, 800));
    startWorker();
    await waitFor(() => expired.length === 2, 'both traces reported expired');
    expect(processed).toEqual([]);
    expect(expired.map(([id]) => id).sort()).toEqual([traceId(10), traceId(11)]);
    expect(expired[0]![1]).toMatch(
      /^its spans were no longer in Redis when a worker took its job, \d+ s after it was accepted/,
    );
  });

  it('refuses (503) while the oldest unscored trace is older than maxBacklogAgeMs, and takes traffic again once it is scored', async () => {
    const { sink, processed, startWorker } = driver({
      startWorker: false,
      admission: { maxBacklogAgeMs: 600 },
    });
    await sink.accept(childSpans(12, ['root']));
    await new Promise(r => setTimeout(r, 1200)); // past the age, and the once-a-second reading
    await expect(sink.accept(childSpans(13, ['root']))).rejects.toMatchObject({
      code: 'SS_INGEST_UNAVAILABLE',
      retryAfterSeconds: 30,
      message: expect.stringMatching(
        /^the oldest unscored trace has waited \d+ s \(admission\.maxBacklogAgeMs 600 ms\): the workers are down or too few$/,
      ),
    });
    startWorker();
    await waitFor(() => processed.length === 1, 'the waiting trace to be scored');
    await new Promise(r => setTimeout(r, 1100));
    await sink.accept(childSpans(14, ['root']));
    await waitFor(() => processed.length === 2, 'the next trace to be scored');
  });

  it('refuses (503) once no worker has been seen for workerAbsenceMs, and accepts again when one beats', async () => {
    const { sink, redis, prefix } = driver({
      startWorker: false,
      admission: { workerAbsenceMs: 300 },
    });
    await new Promise(r => setTimeout(r, 400));
    await expect(sink.accept(childSpans(15, ['root']))).rejects.toMatchObject({
      code: 'SS_INGEST_UNAVAILABLE',
      message: expect.stringContaining('no worker has been seen for'),
    });
    const stop = startWorkerHeartbeat(redis.commands, prefix, 100);
    cleanups.push(() => Promise.resolve(stop()));
    await new Promise(r => setTimeout(r, 1100));
    await sink.accept(childSpans(15, ['root']));
  });

  it("does not count a trace's own jobs (export retries waiting out an outage) against maxQueuedTraces", async () => {
    const { sink } = driver({ startWorker: false, maxQueuedTraces: 2 });
    for (let t = 40; t < 45; t++)
      await sink.queue.add(
        'score-trace',
        { traceId: traceId(t), handedOver: true, exportRetry: true },
        { jobId: traceId(t), delay: 60_000 },
      );
    await sink.accept(childSpans(46, ['root']));
    await new Promise(r => setTimeout(r, 1100));
    await sink.accept(childSpans(47, ['root'])); // 1 trace of a request queued: accepted
  });

  it('keeps the spans of requests that reach maxSpansPerTrace, refuses the later ones, and tells scoring', async () => {
    const seen: Array<{ spans: number; notes: string[] }> = [];
    const { sink, startWorker } = driver({
      startWorker: false,
      maxSpansPerTrace: 3,
      process: (_id, spans, attempt) => {
        seen.push({ spans: spans.length, notes: attempt.notes.map(n => n.message) });
        return Promise.resolve();
      },
    });
    expect(await sink.accept(childSpans(48, ['a', 'b']))).toBeUndefined();
    // Crosses it: what fits is kept (as the memory driver keeps it), the rest refused.
    expect(await sink.accept(childSpans(48, ['c', 'd']))).toEqual({
      refusedSpans: 1,
      reason: 'trace(s) past assembly.maxSpansPerTrace (3 spans): later spans are not kept',
    });
    expect(await sink.accept(childSpans(48, ['e', 'root']))).toEqual({
      refusedSpans: 2,
      reason: 'trace(s) past assembly.maxSpansPerTrace (3 spans): later spans are not kept',
    });
    startWorker();
    await waitFor(() => seen.length === 1, 'the truncated trace to be scored', 15_000);
    expect(seen).toEqual([
      {
        spans: 3,
        notes: [
          'the trace has more spans than a trace may keep (assembly.maxSpansPerTrace 3): 3 later span(s) were refused, and it was scored with its first 3',
        ],
      },
    ]);
  });

  it('counts queued traces, not jobs, against maxQueuedTraces', async () => {
    const { sink } = driver({ startWorker: false, maxQueuedTraces: 3 });
    await sink.accept([...childSpans(33, ['root']), ...childSpans(34, ['root'])]); // one job
    await new Promise(r => setTimeout(r, 1100)); // the backlog count is refreshed once a second
    await sink.accept(childSpans(35, ['root'])); // 2 traces queued: accepted
    await new Promise(r => setTimeout(r, 1100));
    await expect(sink.accept(childSpans(36, ['root']))).rejects.toMatchObject({
      code: 'SS_INGEST_SATURATED',
      message: '3 traces are waiting to be scored (limit 3)',
    });
  });

  it('answers saturated past maxQueuedTraces, and unavailable when Redis cannot be reached', async () => {
    const { sink } = driver({ startWorker: false, maxQueuedTraces: 1 });
    await sink.accept(childSpans(9, ['root']));
    await new Promise(r => setTimeout(r, 1100)); // the backlog count is refreshed once a second
    await expect(sink.accept(childSpans(10, ['root']))).rejects.toMatchObject({
      code: 'SS_INGEST_SATURATED',
    });

    const down = createRedisConnection('redis://127.0.0.1:1', 'commands');
    down.on('error', () => undefined);
    const queueConn = createRedisConnection('redis://127.0.0.1:1', 'bullmq');
    queueConn.on('error', () => undefined);
    const dead = createBullmqTraceSink({
      ...bullmqTraceOptions(CONFIG_DEFAULTS),
      ...bullmqSinkLimits(CONFIG_DEFAULTS),
      prefix: testPrefix(),
      policy,
      redis: down,
      queueConnection: queueConn,
      maxQueuedTraces: 1_000_000,
    });
    cleanups.push(async () => {
      down.disconnect();
      queueConn.disconnect();
    });
    // Refused, not left waiting for Redis: a hang ends as 'hung', which is not SS_INGEST_UNAVAILABLE.
    await expect(
      Promise.race([
        dead.accept(childSpans(11, ['root'])),
        new Promise((_, reject) => setTimeout(() => reject(new Error('hung')), 8000)),
      ]),
    ).rejects.toMatchObject({ code: 'SS_INGEST_UNAVAILABLE' });
  });
});
