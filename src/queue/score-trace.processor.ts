import { DelayedError, UnrecoverableError, Worker, type Job } from 'bullmq';
import type { RedisClient } from './redis-connection.js';

import type { SpanDigest } from '../ingest/span-digest.js';
import type { BullmqTraceOptions } from './bullmq-trace-assembler.js';
import { traceQueueShards, type QueueLocation } from './queue-shards.js';
import { classifyFailure } from './classify-failure.js';
import { backoffDelay, isExportFailure, shouldRetry } from './export-retry.js';
import { RedisSpanBuffer } from './redis-span-buffer.js';
import { traceReadiness } from './trace-readiness.js';

/** Options of {@link createScoreTraceWorker}. */
export interface ScoreTraceWorkerOptions extends BullmqTraceOptions {
  /** A connection for reading the span buffer (a cluster one makes the queue hash-tagged). */
  redis: RedisClient;
  /**
   * The queue shard this worker takes from, 0 to `shards` - 1 (see `traceQueueShards`); a
   * process consumes every shard with one worker each. @defaultValue 0
   */
  shard?: number;
  /** A connection for the BullMQ worker (`maxRetriesPerRequest: null`). */
  workerConnection: RedisClient;
  /** Scores one complete trace; rejects with an `upstream` error to be retried. */
  process: (traceId: string, spans: SpanDigest[]) => Promise<unknown>;
  /** Traces scored at once by this worker. @defaultValue 4 */
  concurrency?: number;
  /** BullMQ job lock and stalled-job check; a dead worker's job runs again within their sum. @defaultValue 30000 each */
  lockDurationMs?: number;
  stalledIntervalMs?: number;
  /** Called for spans that arrived while their trace was being scored. */
  onLateSpans?: (traceId: string, count: number) => void;
  /** Tries for retryable failures other than exports, and the first backoff. @defaultValue 5, 1000 */
  attempts?: number;
  backoffMs?: number;
  /** Connection errors of the worker (BullMQ reconnects by itself). */
  onError?: (error: Error) => void;
}

/**
 * The `bullmq` driver's worker: takes a trace's job when it is due, re-delays it (BullMQ
 * `moveToDelayed` + `DelayedError`) until {@link traceReadiness} says the trace is complete, then
 * scores all its spans once and marks it scored. Only `upstream` failures (an OTLP backend or a
 * judge) are retried, with exponential backoff: an export failure until the job is
 * `exportRetry.maxAgeMs` old (its spans kept that long), others `attempts` times; anything else
 * fails the job at once (`UnrecoverableError`), with its reason. BullMQ's stalled-job check hands the job of a worker that died to
 * another. Any number of workers, on any hosts, can share the queue.
 */
export function createScoreTraceWorker(
  options: ScoreTraceWorkerOptions,
): Worker<{ traceId: string }> {
  const prefix = options.prefix ?? 'spanscore';
  const buffer = new RedisSpanBuffer(
    options.redis,
    prefix,
    options.ttlMs ?? 2 * options.policy.maxWaitMs + 60_000,
  );
  const keep = options.rescoreLateSpans === true;

  async function processor(
    job: Job<{ traceId: string }>,
    token?: string,
  ): Promise<{ spans: number } | { skipped: string }> {
    const { traceId } = job.data;
    const read = await buffer.read(traceId);
    const { progress, spans } = read;
    if (!progress) return { skipped: 'no spans buffered (expired)' };
    if (!progress.scored) {
      const readiness = traceReadiness(progress, Date.now(), options.policy);
      if (!readiness.ready) {
        await job.moveToDelayed(readiness.recheckAtMs, token);
        throw new DelayedError();
      }
    }
    try {
      await options.process(traceId, spans);
    } catch (error) {
      if (classifyFailure(error).action === 'fail')
        throw new UnrecoverableError(error instanceof Error ? error.message : String(error));
      if (!options.exportRetry) throw error;
      const decision = shouldRetry(
        error,
        {
          attemptsMade: job.attemptsMade,
          attempts: options.attempts ?? 5,
          ageMs: Date.now() - job.timestamp,
        },
        options.exportRetry,
      );
      if (!decision.retry) throw new UnrecoverableError(decision.reason);
      // The spans must outlive the retries: the buffer's own TTL is minutes.
      if (isExportFailure(error))
        await buffer.extend(traceId, options.exportRetry.maxAgeMs + 10 * 60_000);
      throw error;
    }
    const racing = await buffer.markScored(traceId, read, Date.now(), keep);
    if (racing > 0) {
      options.onLateSpans?.(traceId, racing);
      if (keep) {
        // Spans arrived while this job ran, and no second job can hold this trace id: run this
        // one again after the settle window to rescore with every span.
        await job.moveToDelayed(Date.now() + options.policy.settleMs, token);
        throw new DelayedError();
      }
    }
    return { spans: spans.length };
  }

  const where: QueueLocation | undefined = traceQueueShards(
    prefix,
    options.shards ?? 1,
    options.redis.isCluster,
  )[options.shard ?? 0];
  if (!where) throw new RangeError(`shard ${options.shard} of ${options.shards ?? 1} shards`);
  const worker = new Worker(where.name, processor, {
    connection: options.workerConnection,
    prefix: where.prefix,
    concurrency: options.concurrency ?? 4,
    lockDuration: options.lockDurationMs ?? 30_000,
    stalledInterval: options.stalledIntervalMs ?? 30_000,
    removeOnComplete: { count: 0 },
    removeOnFail: { count: 1000 },
    ...(options.exportRetry && {
      settings: {
        backoffStrategy: (attemptsMade: number) =>
          backoffDelay(attemptsMade, options.backoffMs ?? 1000, options.exportRetry!.maxBackoffMs),
      },
    }),
  });
  worker.on('error', error => options.onError?.(error));
  return worker;
}
