import { DelayedError, Queue, UnrecoverableError, Worker, type Job } from 'bullmq';
import pLimit from 'p-limit';
import type { RedisClient } from '../redis/redis-connection.js';

import type { SpanDigest } from '../ingest/span-digest.js';
import type { Diagnostic } from '../normalize/inspect-trace.js';
import { bufferTtls, type BullmqTraceOptions } from './bullmq-trace-assembler.js';
import { SCORE_TRACE_QUEUE, traceQueueShards, type QueueLocation } from './queue-shards.js';
import { classifyFailure } from './classify-failure.js';
import { backoffDelay, isExportFailure, shouldRetry } from './export-retry.js';
import { RedisSpanBuffer, type BufferedTrace } from '../redis/redis-span-buffer.js';
import { countRescore } from '../redis/count-rescore.js';
import { redisFailure } from '../redis/redis-failure.js';
import { retryWithBackoff } from './retry-with-backoff.js';
import { rescoreJobId, traceJobOptions, type TraceJobData } from './trace-job.js';
import { traceReadiness } from './trace-readiness.js';
import { truncationNotes } from './span-cap.js';

/**
 * The error a job fails with when retrying cannot help: BullMQ's `UnrecoverableError` with
 * `reason`, and the last error as its `cause`, so that whoever hears of the failure can tell a
 * given-up export (`isExportGiveUp`) from a failed scoring.
 */
export function exportGaveUp(reason: string, cause: unknown): UnrecoverableError {
  const error = new UnrecoverableError(reason);
  error.cause = cause;
  return error;
}

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
  /**
   * Scores one complete trace; rejects with an `upstream` error to be retried. `exportRetry`:
   * an earlier try failed to export (see `ScoreOptions.exportRetry`). It may resolve with the
   * trace's delivery (the export of its evaluation spans, and what follows it), which then runs
   * outside the scoring slot; a delivery that rejects is retried as a failed scoring is.
   * `rescore`: the trace is scored again for late spans, for the `rescore`th time (counted in its
   * buffer hash; absent for its first scoring).
   */
  process: (
    traceId: string,
    spans: SpanDigest[],
    attempt: { exportRetry: boolean; notes: Diagnostic[]; rescore?: number },
  ) => Promise<TraceDelivery | void>;
  /** Jobs this worker reads and scores at once (their deliveries wait outside this limit). */
  concurrency: number;
  /**
   * Jobs whose deliveries may wait on the tracing backend at once, besides those being scored:
   * past it, a slow backend holds up scoring. @defaultValue {@link DELIVERING_JOBS}
   */
  deliveringJobs?: number;
  /** BullMQ job lock and stalled-job check; a dead worker's job runs again within their sum. */
  lockDurationMs: number;
  stalledIntervalMs: number;
  /** Called for spans that arrived while their trace was being scored. */
  onLateSpans?: (traceId: string, count: number) => void;
  /** Connection errors of the worker (BullMQ reconnects by itself). */
  onError?: (error: Error) => void;
  /**
   * A job found no spans of a trace it holds: gone past the buffer's TTL, or evicted by Redis (or
   * scored, by another job, so long ago that its scored mark is gone too: the listener checks).
   */
  onExpired?: (traceId: string, reason: string) => void;
}

/** A scored trace's delivery: the export of its evaluation spans, and what follows it. */
export type TraceDelivery = () => Promise<void>;

/**
 * Jobs a worker holds while their traces' evaluation spans are exported, besides the jobs it
 * scores, by default: about 250 traces (`TRACES_PER_JOB_EXPECTED` a job). Not a setting: with a
 * backend answering in `L` seconds, it lets a worker deliver about 250 / `L` traces a second
 * before the backend holds up its scoring (with 200 ms, 1,250 traces or 25,000 spans a second,
 * more than a worker scores); it bounds the jobs one worker takes from the queue ahead of others
 * (a job waiting for a scoring slot has read nothing yet) and what a worker holds while its
 * exports run (each trace's evaluation spans, and its spans when a judge pass or session needs
 * them): 64 raised a worker's peak RSS from about 280 to 330 MB on the benchmark's closed loop,
 * 16 kept it at 280 (both measured while a delivery still held the whole run).
 */
export const DELIVERING_JOBS = 16;

/**
 * Tries at marking a delivered trace scored, and the first wait between them (doubling): 12.7 s
 * of waits in all, within BullMQ's default 30 s job lock, whose key Redis expires by its own
 * clock (an outage longer than the lock's rest stalls the job, which is then run again anyway).
 * A failed mark fails the job, whose retry scores and exports the trace again: a Redis outage
 * right after an export (a restart, a pause) is waited out here. With 6 tries (3.1 s) a restart
 * of Redis on a loaded host outlasted them, and a fault test saw two traces exported twice.
 */
const MARK_SCORED_ATTEMPTS = 8;
const MARK_SCORED_BACKOFF_MS = 100;

/**
 * The `bullmq` driver's worker. A job holds the traces of one request (see `TraceJobData`): it
 * reads them in one batch, claiming each it is the first job to read once the trace's root has
 * arrived (or its max wait passed; see `RedisSpanBuffer.readMany`), scores the claimed traces
 * that {@link traceReadiness} says are complete, marks them scored, and re-delays itself (BullMQ
 * `moveToDelayed` + `DelayedError`) with the rest until they are. A trace whose root comes in a
 * later request is scored by that request's job, a settle window after the root. A trace whose
 * scoring fails is handed over to a job of its own (`jobId` = trace id), which does what a
 * one-trace job does: only `upstream` failures (an OTLP backend or a judge) are retried, with
 * exponential backoff, an export failure until the job is `exportRetry.maxAgeMs` old (its spans
 * kept that long), others `attempts` times; anything else fails the job at once
 * (`UnrecoverableError`), with its reason.
 *
 * Reading and scoring take one of `concurrency` slots; the delivery of a job's scored traces (the
 * export of their evaluation spans) runs after the slot is given back, as with the memory driver,
 * so a slow tracing backend holds no scoring slot. The job stays active until its traces are
 * delivered and marked scored, so a worker that dies mid-export leaves them to the stalled-job
 * check as before: BullMQ runs up to `concurrency` + `deliveringJobs` jobs at once.
 * BullMQ's stalled-job check hands the job of a worker that died to another, which holds the same
 * claims. Any number of workers, on any hosts, can share the queue.
 */
export function createScoreTraceWorker(options: ScoreTraceWorkerOptions): Worker<TraceJobData> {
  const prefix = options.prefix ?? 'spanscore';
  const ttls = bufferTtls(options);
  const buffer = new RedisSpanBuffer(options.redis, prefix, ttls);
  /** What scoring is told of a trace whose later spans were not kept (`maxSpansPerTrace`). */
  const notesOf = (read: BufferedTrace) =>
    truncationNotes(ttls.maxSpansPerTrace, read.dropped, read.spans.length);
  const keep = options.rescoreLateSpans === true;
  const where: QueueLocation | undefined = traceQueueShards(
    prefix,
    options.shards ?? 1,
    options.redis.isCluster,
  )[options.shard ?? 0];
  if (!where) throw new RangeError(`shard ${options.shard} of ${options.shards ?? 1} shards`);
  // Where handed-over traces and rescores go: this shard's queue (a trace's shard is fixed).
  const queue = new Queue<TraceJobData>(where.name, {
    connection: options.workerConnection,
    prefix: where.prefix,
  });
  const add = (data: TraceJobData, jobId: string, delayMs: number) =>
    queue.add(SCORE_TRACE_QUEUE, data, { ...traceJobOptions(options, delayMs), jobId });
  /**
   * Reading and scoring: `concurrency` jobs at once (deliveries run outside it). A job that gets
   * its slot once the worker is closing goes back to the queue untouched (for any worker, no
   * attempt used): close waits for the jobs under way, not for every job taken ahead.
   */
  const limit = pLimit(options.concurrency);
  let closing = false;
  const scoring = <T>(
    job: Job<TraceJobData>,
    token: string | undefined,
    work: () => Promise<T>,
  ): Promise<T> =>
    limit(async () => {
      if (closing) {
        await job.moveToDelayed(Date.now(), token);
        throw new DelayedError();
      }
      return work();
    });

  /** Aborted when the worker closes: a mark waiting to be retried gives up at once. */
  const closed = new AbortController();

  /**
   * After a trace was scored and delivered: marks it so and reports spans that arrived meanwhile.
   * Returns when it was marked, if those spans are to be rescored (`rescoreLateSpans`). A mark
   * that fails is retried here, {@link MARK_SCORED_ATTEMPTS} tries in all, outside the scoring
   * slot (the caller holds none), with the same time (`buffer.markScored` runs safely twice),
   * before it fails the job: whose retry would score and export the trace again.
   */
  async function markScored(traceId: string, read: ScoredRead): Promise<number | undefined> {
    const at = Date.now();
    let racing: number;
    try {
      racing = await buffer.markScored(traceId, read, at, keep);
    } catch (error) {
      racing = await markAgain(traceId, read, at, error);
    }
    if (racing > 0) options.onLateSpans?.(traceId, racing);
    return keep && racing > 0 ? at : undefined;
  }

  /** The retries of a mark whose first try failed with `error` (see {@link markScored}). */
  function markAgain(traceId: string, read: ScoredRead, at: number, error: unknown) {
    const what = `marking trace ${traceId} scored`;
    return retryWithBackoff(
      () =>
        buffer.markScored(traceId, read, at, keep, true).catch((e: unknown) => {
          throw redisFailure(what, e);
        }),
      { attempts: MARK_SCORED_ATTEMPTS, backoffMs: MARK_SCORED_BACKOFF_MS, signal: closed.signal },
      { error: redisFailure(what, error), startedMs: at },
    );
  }

  /** One trace, alone in its job: BullMQ retries the job as `classifyFailure` says. */
  async function processOne(
    job: Job<TraceJobData>,
    traceId: string,
    token: string | undefined,
  ): Promise<{ spans: number } | { skipped: string }> {
    // A trace handed over after a failure retrying cannot help: failed at once, with the reason
    // (not scored again); re-driven by hand (`spanscore jobs retry`), it is scored.
    if ('failedReason' in job.data && job.data.failedReason !== undefined && job.attemptsMade === 0)
      throw new UnrecoverableError(job.data.failedReason);
    const exportRetry = 'exportRetry' in job.data && job.data.exportRetry === true;
    const scored = await scoring(
      job,
      token,
      async (): Promise<
        | { skipped: string }
        | { read: ScoredRead; outcome: PromiseSettledResult<TraceDelivery | void> }
      > => {
        const read = await buffer.read(traceId);
        const { progress, spans } = read;
        if (!progress) {
          options.onExpired?.(traceId, expiredReason(job));
          return { skipped: 'no spans buffered (expired)' };
        }
        // A trace scored since it was handed over, except a retry of an export: its results are
        // recorded and its evaluation spans still to write (a rescore's trace was scored before).
        if (progress.scored && 'handedOver' in job.data && !exportRetry)
          return { skipped: 'scored by the job that handed it over' };
        if (!progress.scored) {
          const readiness = traceReadiness(progress, Date.now(), options.policy);
          if (!readiness.ready) {
            await job.moveToDelayed(readiness.recheckAtMs, token);
            throw new DelayedError();
          }
        }
        // Scored already (and not handed over): a rescore for late spans, counted in the trace's
        // hash once (keyed by its span count: a retried try of it reads the count, as does a try
        // that retries its export).
        const rescore = progress.scored
          ? await countRescore(options.redis, prefix, traceId, spans.length, !exportRetry)
          : undefined;
        const [outcome] = await Promise.allSettled([
          options.process(
            traceId,
            spans,
            rescore
              ? { exportRetry, notes: notesOf(read), rescore }
              : { exportRetry, notes: notesOf(read) },
          ),
        ]);
        return { read: scoredRead(read), outcome };
      },
    );
    if ('skipped' in scored) return scored;
    const { read, outcome } = scored;
    try {
      await deliveredOf(outcome);
    } catch (error) {
      if (classifyFailure(error).action === 'fail')
        throw new UnrecoverableError(error instanceof Error ? error.message : String(error));
      // Its results were recorded: every later try retries the export only.
      if (isExportFailure(error) && !exportRetry)
        await job.updateData({ traceId, handedOver: true, exportRetry: true });
      if (!options.exportRetry) throw error;
      const decision = shouldRetry(
        error,
        {
          attemptsMade: job.attemptsMade,
          attempts: options.attempts,
          ageMs: Date.now() - job.timestamp,
        },
        options.exportRetry,
      );
      if (!decision.retry) throw exportGaveUp(decision.reason, error);
      // The spans must outlive the retries: the buffer's own TTL is minutes.
      if (isExportFailure(error)) await extend(traceId);
      throw error;
    }
    if ((await markScored(traceId, read)) !== undefined) {
      // Spans arrived while this job ran, and no second job can hold this trace id: run this
      // one again after the settle window to rescore with every span.
      await job.moveToDelayed(Date.now() + options.policy.settleMs, token);
      throw new DelayedError();
    }
    return { spans: read.spanCount };
  }

  const extend = (traceId: string): Promise<void> =>
    options.exportRetry
      ? buffer.extend(traceId, options.exportRetry.maxAgeMs + 10 * 60_000)
      : Promise.resolve();

  /**
   * The traces of one request: each read once, in one batch, and scored if this job claimed it
   * and it is complete; the job then waits for the others. A failed trace is handed over to a job
   * of its own; a failure to read or mark (Redis) fails this job, which BullMQ retries.
   */
  async function processMany(
    job: Job<TraceJobData>,
    traceIds: readonly string[],
    token: string | undefined,
  ): Promise<{ spans: number; traces: number }> {
    // In the scoring slot: the reads, and the scoring of the ready traces, whose deliveries then
    // run after the slot is given back.
    const { scored, waiting, recheckAtMs } = await scoring(job, token, async () => {
      const reads = await buffer.readMany(traceIds, job.id!, Date.now() - options.policy.maxWaitMs);
      const now = Date.now();
      const ready: Array<[string, BufferedTrace]> = [];
      const waiting: string[] = [];
      let recheckAtMs = Infinity;
      reads.forEach((read, i) => {
        if (!read.progress) return options.onExpired?.(traceIds[i]!, expiredReason(job));
        // Scored, or held by another job (it was in that job's request too).
        if (read.progress.scored || read.claimedBy !== undefined) return;
        const readiness = traceReadiness(read.progress, now, options.policy);
        if (readiness.ready && read.held) ready.push([traceIds[i]!, read]);
        else {
          // Not held: rootless and younger than the max wait when read (the claim rule is
          // readiness's rootless half), so not ready, unless its max wait passed during the read
          // (then it is read again at once). This job waits for its max wait; when the root
          // comes first, its request's job claims and scores the trace, and this one finds it
          // scored.
          waiting.push(traceIds[i]!);
          recheckAtMs = Math.min(recheckAtMs, readiness.ready ? now : readiness.recheckAtMs);
        }
      });
      const outcomes = await Promise.allSettled(
        ready.map(([traceId, read]) =>
          options.process(traceId, read.spans, { exportRetry: false, notes: notesOf(read) }),
        ),
      );
      const scored = ready.map(([traceId, read], i) => ({
        traceId,
        read: scoredRead(read),
        outcome: outcomes[i]!,
      }));
      return { scored, waiting, recheckAtMs };
    });
    let spans = 0;
    const outcomes = await Promise.allSettled(
      scored.map(async ({ traceId, read, outcome }) => {
        try {
          await deliveredOf(outcome);
        } catch (error) {
          // Handed over to a job of its own: retried from there after the first backoff, or,
          // when retrying cannot help, failed there at once with the reason, for `spanscore jobs`.
          if (classifyFailure(error).action === 'fail') {
            const failedReason = error instanceof Error ? error.message : String(error);
            await add({ traceId, handedOver: true, failedReason }, traceId, 0);
            return;
          }
          if (isExportFailure(error)) {
            await extend(traceId);
            await add({ traceId, handedOver: true, exportRetry: true }, traceId, options.backoffMs);
          } else await add({ traceId, handedOver: true }, traceId, options.backoffMs);
          return;
        }
        spans += read.spanCount;
        const rescoreFrom = await markScored(traceId, read);
        if (rescoreFrom !== undefined)
          await add({ traceId }, rescoreJobId(traceId, rescoreFrom), options.policy.settleMs);
      }),
    );
    // Redis failed while marking or handing over: the whole job is retried, and its claimed
    // traces that were not marked scored are read and scored again.
    const failure = outcomes.find(o => o.status === 'rejected');
    if (failure) throw failure.reason;
    if (waiting.length > 0) {
      await job.updateData({ traceIds: waiting });
      await job.moveToDelayed(recheckAtMs, token);
      throw new DelayedError();
    }
    return { spans, traces: scored.length };
  }

  function processor(
    job: Job<TraceJobData>,
    token?: string,
  ): Promise<{ spans: number } | { skipped: string }> {
    return 'traceIds' in job.data
      ? processMany(job, job.data.traceIds, token)
      : processOne(job, job.data.traceId, token);
  }

  const worker = new Worker<TraceJobData>(where.name, processor, {
    connection: options.workerConnection,
    prefix: where.prefix,
    concurrency: options.concurrency + (options.deliveringJobs ?? DELIVERING_JOBS),
    lockDuration: options.lockDurationMs,
    stalledInterval: options.stalledIntervalMs,
    removeOnComplete: { count: 0 },
    removeOnFail: { count: 1000 },
    ...(options.exportRetry && {
      settings: {
        backoffStrategy: (attemptsMade: number) =>
          backoffDelay(attemptsMade, options.backoffMs, options.exportRetry!.maxBackoffMs),
      },
    }),
  });
  worker.on('error', error => options.onError?.(error));
  worker.on('closing', () => {
    closing = true;
    closed.abort();
  });
  // The queue shares the worker's connection, which the driver closes after the worker.
  worker.on('closed', () => void queue.close().catch(() => undefined));
  return worker;
}

/**
 * What a job keeps of a trace it scored while the delivery runs: what marking it scored needs,
 * not its spans (a job may wait on a slow backend; its traces' spans are let go meanwhile).
 */
type ScoredRead = Pick<BufferedTrace, 'stored' | 'appended'> & { spanCount: number };

const scoredRead = (read: BufferedTrace): ScoredRead => ({
  stored: read.stored,
  appended: read.appended,
  spanCount: read.spans.length,
});

/**
 * A trace's scoring outcome, then its delivery: rejects with the scoring error, or the delivery's.
 */
async function deliveredOf(outcome: PromiseSettledResult<TraceDelivery | void>): Promise<void> {
  if (outcome.status === 'rejected') throw outcome.reason;
  await outcome.value?.();
}

/** Why a job found nothing of a trace it holds, for the trace's run record. */
function expiredReason(job: Job<TraceJobData>): string {
  const waitedS = Math.round((Date.now() - job.timestamp) / 1000);
  return `its spans were no longer in Redis when a worker took its job, ${waitedS} s after it was accepted (kept at most assembly.unscoredTtlMs; or evicted: Redis needs maxmemory-policy noeviction)`;
}
