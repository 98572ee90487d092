import { Queue } from 'bullmq';
import { SpanscoreError } from '../errors/spanscore-error.js';
import type { SpanDigest } from '../ingest/span-digest.js';
import type { PartlyRefused, SpanSink } from '../ingest/span-sink.js';
import { groupSpansByTrace } from '../normalize/group-spans-by-trace.js';
import { whenReady, type RedisClient } from '../redis/redis-connection.js';
import { SCORE_TRACE_QUEUE, shardOfTrace, traceQueueShards } from './queue-shards.js';
import type { ExportRetryPolicy } from './export-retry.js';
import { RedisSpanBuffer, type BufferTtls } from '../redis/redis-span-buffer.js';
import {
  MAX_TRACES_PER_JOB,
  QUEUED_TRACES,
  manyTraceJobId,
  rescoreJobId,
  traceJobOptions,
  type TraceJobData,
} from './trace-job.js';
import type { ReadinessPolicy } from './trace-readiness.js';
import { appendWithinCap, traceBatch, type TraceBatch } from './append-within-cap.js';
import { readRedisMemory } from '../redis/redis-memory.js';
import { refusedPastCap } from './span-cap.js';
import { lastWorkerSeen } from '../redis/worker-heartbeat.js';
import {
  admissionVerdict,
  type AdmissionLimits,
  type BacklogState,
  type Refusal,
} from './backlog-admission.js';

export { SCORE_TRACE_QUEUE } from './queue-shards.js';

/**
 * The span buffer's TTLs and span cap every side uses (receiver, worker, the inspect view's
 * reads): `unscoredTtlMs` while a trace waits to be scored, the late window, 2 × `maxWaitMs` +
 * 60 s, once it is, and `maxSpansPerTrace`.
 */
export function bufferTtls(
  options: Pick<BullmqTraceOptions, 'unscoredTtlMs' | 'policy' | 'maxSpansPerTrace'>,
): Required<BufferTtls> {
  return {
    unscoredTtlMs: options.unscoredTtlMs,
    scoredTtlMs: 2 * options.policy.maxWaitMs + 60_000,
    maxSpansPerTrace: options.maxSpansPerTrace,
  };
}

/**
 * Options shared by the BullMQ sink and worker; both sides must agree on them. Resolved values:
 * `bullmqTraceOptions(config)` reads them from the config, whose schema holds the defaults.
 */
export interface BullmqTraceOptions {
  /** Key prefix for the span buffer and BullMQ's own keys (`queue.prefix`). */
  prefix: string;
  policy: ReadinessPolicy;
  /** Keep scored traces' spans for the late window and rescore when late spans arrive. */
  rescoreLateSpans: boolean;
  /**
   * How long a trace's spans are kept in Redis while no worker has scored it: long past any
   * outage the receiver accepts traffic through; a trace not scored by then ends `expired`.
   */
  unscoredTtlMs: number;
  /** Export failures are retried by age; other failures `attempts` times. */
  exportRetry?: ExportRetryPolicy;
  /** Trace queues, each trace in one by its id (see `traceQueueShards`). */
  shards: number;
  /** Spans kept of one trace (see `BufferTtls.maxSpansPerTrace`). */
  maxSpansPerTrace: number;
  /** Tries per trace for failures other than exports (`worker.attempts`). */
  attempts: number;
  /** The first backoff, doubling (`worker.backoffMs`). */
  backoffMs: number;
}

/** Options of {@link createBullmqTraceSink}. */
export interface BullmqTraceSinkOptions extends BullmqTraceOptions {
  /**
   * A connection for the span buffer: fails fast while disconnected (`enableOfflineQueue: false`).
   * A Redis Cluster connection makes the queues' keys hash-tagged.
   */
  redis: RedisClient;
  /** A connection for the BullMQ queues (`maxRetriesPerRequest: null`, as BullMQ requires). */
  queueConnection: RedisClient;
  /**
   * Traces waiting or delayed in the queue, or taken by a worker and not done, before `accept`
   * answers 429 (a trace in two requests' jobs counts twice).
   */
  maxQueuedTraces: number;
  /**
   * The other limits of admission (see `admissionVerdict`): the oldest unscored trace's age,
   * Redis memory, worker absence.
   */
  admission: Omit<AdmissionLimits, 'maxQueuedTraces'>;
  /** A request was refused by admission (for the metric and the log). */
  onRefused?: (refusal: Refusal) => void;
  /** Connection errors of the queue (BullMQ reconnects by itself). */
  onError?: (error: Error) => void;
  /** Called for spans that arrive after their trace was scored. */
  onLateSpans?: (traceId: string, count: number) => void;
}

/** The receiver side of the `bullmq` driver. */
export interface BullmqTraceSink extends SpanSink {
  /** The first shard's queue (the only one with one shard). */
  queue: Queue;
  /** Every shard's queue, by shard index. */
  queues: Queue[];
  close(): Promise<void>;
}

/**
 * The `bullmq` driver's sink: spans go to Redis (one Lua call per trace per request), and the
 * request's traces get one BullMQ job (per queue shard, of at most 64 traces: `TraceJobData`),
 * first run `settleMs` later; the worker re-delays it with the traces not complete yet. A trace
 * whose spans came in several requests is in several jobs, and the first to read it scores it.
 * Late spans (after scoring) are counted in Redis and, with `rescoreLateSpans`, queue a rescore.
 * Redis unreachable → `SS_INGEST_UNAVAILABLE` (503); queue past `maxQueuedTraces` →
 * `SS_INGEST_SATURATED` (429): exporters retry either way.
 */
export function createBullmqTraceSink(options: BullmqTraceSinkOptions): BullmqTraceSink {
  const prefix = options.prefix;
  const ttls = bufferTtls(options);
  const buffer = new RedisSpanBuffer(options.redis, prefix, ttls);
  const shards = traceQueueShards(prefix, options.shards, options.redis.isCluster);
  const queues = shards.map(
    shard => new Queue(shard.name, { connection: options.queueConnection, prefix: shard.prefix }),
  );
  const limits: AdmissionLimits = {
    maxQueuedTraces: options.maxQueuedTraces,
    maxBacklogAgeMs: options.admission.maxBacklogAgeMs,
    maxRedisMemoryRatio: options.admission.maxRedisMemoryRatio,
    workerAbsenceMs: options.admission.workerAbsenceMs,
  };
  const startedAtMs = Date.now();
  const jobOptions = traceJobOptions(options, options.policy.settleMs);
  let backlog: { state: BacklogState; at: number } | undefined;
  const counter = options.redis as RedisClient & {
    spanscoreQueuedTraces(
      wait: string,
      delayed: string,
      prioritized: string,
      active: string,
      base: string,
    ): Promise<[number, string]>;
  };
  counter.defineCommand('spanscoreQueuedTraces', { numberOfKeys: 4, lua: QUEUED_TRACES });

  for (const queue of queues) queue.on('error', error => options.onError?.(error));

  async function backlogState(): Promise<BacklogState> {
    // Read once a second at most: a Redis call per request would cost more than the check saves.
    // Counted on the fail-fast connection, from BullMQ's key layout (wait list, delayed and
    // prioritized sets: traces by job id, `QUEUED_TRACES`), because the queue's own connection
    // waits out a Redis outage. One script call per shard: a shard's keys share a slot on a
    // cluster. Redis memory (INFO of every master) and the workers' heartbeat beside it.
    if (!backlog || Date.now() - backlog.at > 1000) {
      const [perShard, memory, workerSeenAtMs] = await Promise.all([
        Promise.all(
          shards.map(shard => {
            const base = `${shard.prefix}:${shard.name}`;
            return counter.spanscoreQueuedTraces(
              `${base}:wait`,
              `${base}:delayed`,
              `${base}:prioritized`,
              `${base}:active`,
              base,
            );
          }),
        ),
        readRedisMemory(options.redis),
        lastWorkerSeen(options.redis, prefix),
      ]);
      const oldest = perShard
        .map(([, at]) => (at === '' ? Infinity : Number(at)))
        .reduce((a, b) => Math.min(a, b), Infinity);
      backlog = {
        state: {
          queuedTraces: perShard.reduce((a, [n]) => a + Number(n), 0),
          oldestQueuedAtMs: Number.isFinite(oldest) ? oldest : undefined,
          redisMemoryRatio: memory.ratio,
          workerSeenAtMs,
        },
        at: Date.now(),
      };
    }
    return backlog.state;
  }

  /** A trace job as `addBulk` takes it. */
  const job = (data: TraceJobData, jobId: string) => ({
    name: SCORE_TRACE_QUEUE,
    data,
    opts: { ...jobOptions, jobId },
  });

  return {
    queue: queues[0]!,
    queues,
    async accept(spans: SpanDigest[]): Promise<PartlyRefused | void> {
      try {
        await whenReady(options.redis);
        const refusal = admissionVerdict(await backlogState(), limits, Date.now(), startedAtMs);
        if (refusal) {
          options.onRefused?.(refusal);
          throw new SpanscoreError(
            refusal.status === 429 ? 'SS_INGEST_SATURATED' : 'SS_INGEST_UNAVAILABLE',
            refusal.message,
            { retryAfterSeconds: refusal.retryAfterSeconds },
          );
        }
        const byTrace = new Map<string, TraceBatch>();
        for (const [traceId, batch] of groupSpansByTrace(spans))
          byTrace.set(traceId, traceBatch(batch));
        const { late, refused, refusedOf } = await appendWithinCap(
          buffer,
          byTrace,
          Date.now(),
          options.rescoreLateSpans,
        );
        // The traces this request holds, in one job per shard (of at most MAX_TRACES_PER_JOB),
        // whether or not another request's job already holds them: the first job to read a trace
        // claims it (see `RedisSpanBuffer.readMany`), and a retried request loses nothing.
        const fresh: string[][] = queues.map(() => []);
        const jobs: Array<Array<ReturnType<typeof job>>> = queues.map(() => []);
        for (const traceId of byTrace.keys()) {
          const shard = shardOfTrace(traceId, queues.length);
          const scoredAt = late.get(traceId);
          if (scoredAt === '-') continue;
          if (scoredAt === undefined) {
            fresh[shard]!.push(traceId);
            continue;
          }
          // The spans kept (or counted late and let go), not those refused past the cap.
          const counted = byTrace.get(traceId)!.spans.length - (refusedOf.get(traceId) ?? 0);
          if (counted > 0) options.onLateSpans?.(traceId, counted);
          if (options.rescoreLateSpans)
            jobs[shard]!.push(job({ traceId }, rescoreJobId(traceId, scoredAt)));
        }
        fresh.forEach((traceIds, shard) => {
          for (let i = 0; i < traceIds.length; i += MAX_TRACES_PER_JOB) {
            const chunk = traceIds.slice(i, i + MAX_TRACES_PER_JOB);
            jobs[shard]!.push(job({ traceIds: chunk }, manyTraceJobId(chunk.length)));
          }
        });
        // One `addBulk` per shard that has jobs.
        await Promise.all(
          jobs.flatMap((list, shard) => (list.length ? [queues[shard]!.addBulk(list)] : [])),
        );
        return refusedPastCap(refused, ttls.maxSpansPerTrace);
      } catch (error) {
        if (error instanceof SpanscoreError) throw error;
        throw new SpanscoreError('SS_INGEST_UNAVAILABLE', `Redis: ${(error as Error).message}`, {
          retryAfterSeconds: 5,
          cause: error,
        });
      }
    },
    close: () => Promise.all(queues.map(q => q.close())).then(() => undefined),
  };
}
