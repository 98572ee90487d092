import { Queue, type JobsOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import { SpanscoreError } from '../errors/spanscore-error.js';
import type { SpanDigest } from '../ingest/span-digest.js';
import type { SpanSink } from '../ingest/span-sink.js';
import { groupSpansByTrace } from '../normalize/group-spans-by-trace.js';
import { whenReady } from './redis-connection.js';
import { BACKOFF_STRATEGY, UNBOUNDED_ATTEMPTS, type ExportRetryPolicy } from './export-retry.js';
import { RedisSpanBuffer } from './redis-span-buffer.js';
import { isRootSpan, type ReadinessPolicy } from './trace-readiness.js';

/** The BullMQ queue that holds one job per trace. */
export const SCORE_TRACE_QUEUE = 'score-trace';

/** Options shared by the BullMQ sink and worker; both sides must agree on them. */
export interface BullmqTraceOptions {
  /** Key prefix for the span buffer and BullMQ's own keys. @defaultValue 'spanscore' */
  prefix?: string;
  policy: ReadinessPolicy;
  /** Keep scored traces' spans for the late window and rescore when late spans arrive. @defaultValue false */
  rescoreLateSpans?: boolean;
  /** How long buffered spans and trace state live in Redis. @defaultValue 2 × maxWaitMs + 60 s */
  ttlMs?: number;
  /** Export failures are retried by age; other failures `attempts` times. */
  exportRetry?: ExportRetryPolicy;
}

/** Options of {@link createBullmqTraceSink}. */
export interface BullmqTraceSinkOptions extends BullmqTraceOptions {
  /** A connection for the span buffer: fails fast while disconnected (`enableOfflineQueue: false`). */
  redis: Redis;
  /** A connection for the BullMQ queue (`maxRetriesPerRequest: null`, as BullMQ requires). */
  queueConnection: Redis;
  /** Traces waiting or delayed in the queue before `accept` answers 429. @defaultValue 100000 */
  maxQueuedTraces?: number;
  /** Tries per trace and the first backoff (exponential). @defaultValue 5 and 1000 ms */
  attempts?: number;
  backoffMs?: number;
  /** Connection errors of the queue (BullMQ reconnects by itself). */
  onError?: (error: Error) => void;
  /** Called for spans that arrive after their trace was scored. */
  onLateSpans?: (traceId: string, count: number) => void;
}

/** The receiver side of the `bullmq` driver. */
export interface BullmqTraceSink extends SpanSink {
  queue: Queue;
  close(): Promise<void>;
}

/**
 * The `bullmq` driver's sink: spans go to Redis (one Lua call per trace per request), and each
 * trace gets one BullMQ job, `jobId` = trace id, first run `settleMs` later (the worker re-delays it
 * until the trace is complete). Adding a job that exists is a no-op, so a trace never has two.
 * Late spans (after scoring) are counted in Redis and, with `rescoreLateSpans`, queue a rescore.
 * Redis unreachable → `SS_INGEST_UNAVAILABLE` (503); queue past `maxQueuedTraces` →
 * `SS_INGEST_SATURATED` (429): exporters retry either way.
 */
export function createBullmqTraceSink(options: BullmqTraceSinkOptions): BullmqTraceSink {
  const prefix = options.prefix ?? 'spanscore';
  const buffer = new RedisSpanBuffer(
    options.redis,
    prefix,
    options.ttlMs ?? 2 * options.policy.maxWaitMs + 60_000,
  );
  const queue = new Queue(SCORE_TRACE_QUEUE, { connection: options.queueConnection, prefix });
  const maxQueued = options.maxQueuedTraces ?? 100_000;
  const jobOptions: JobsOptions = {
    delay: options.policy.settleMs,
    // With export retry by age, the worker decides when to give up (see `shouldRetry`).
    attempts: options.exportRetry ? UNBOUNDED_ATTEMPTS : (options.attempts ?? 5),
    backoff: options.exportRetry
      ? { type: BACKOFF_STRATEGY, delay: options.backoffMs ?? 1000 }
      : { type: 'exponential', delay: options.backoffMs ?? 1000 },
    removeOnComplete: true, // so a rescore can reuse the trace id as job id
    removeOnFail: { count: 1000 },
  };
  let backlog = { count: 0, at: 0 };

  queue.on('error', error => options.onError?.(error));

  async function queued(): Promise<number> {
    // One count per second at most: a Redis call per request would cost more than the check saves.
    // Counted on the fail-fast connection, from BullMQ's key layout (wait list, delayed and
    // prioritized sets), because the queue's own connection waits out a Redis outage.
    if (Date.now() - backlog.at > 1000) {
      const base = `${prefix}:${SCORE_TRACE_QUEUE}`;
      const counts =
        (await options.redis
          .multi()
          .llen(`${base}:wait`)
          .zcard(`${base}:delayed`)
          .zcard(`${base}:prioritized`)
          .exec()) ?? [];
      backlog = {
        count: counts.reduce((sum, [error, n]) => (error ? sum : sum + Number(n)), 0),
        at: Date.now(),
      };
    }
    return backlog.count;
  }

  return {
    queue,
    async accept(spans: SpanDigest[]) {
      try {
        await whenReady(options.redis);
        if ((await queued()) >= maxQueued) {
          throw new SpanscoreError(
            'SS_INGEST_SATURATED',
            `${backlog.count} traces are waiting to be scored (limit ${maxQueued})`,
            { retryAfterSeconds: 2 },
          );
        }
        const byTrace = new Map<string, { spans: SpanDigest[]; rootSeen: boolean }>();
        for (const [traceId, batch] of groupSpansByTrace(spans)) {
          const ids = new Set(batch.map(s => s.spanId));
          byTrace.set(traceId, { spans: batch, rootSeen: batch.some(s => isRootSpan(s, ids)) });
        }
        const late = await buffer.append(byTrace, Date.now(), options.rescoreLateSpans === true);
        const jobs = [...byTrace.keys()].flatMap(traceId => {
          const scoredAt = late.get(traceId);
          if (scoredAt !== undefined)
            options.onLateSpans?.(traceId, byTrace.get(traceId)!.spans.length);
          if (scoredAt === undefined)
            return [
              {
                name: SCORE_TRACE_QUEUE,
                data: { traceId },
                opts: { ...jobOptions, jobId: traceId },
              },
            ];
          if (!options.rescoreLateSpans) return [];
          // A rescore gets its own id per scoring generation: the job that scored the trace may
          // still be finishing (active), and an add with its id would be silently ignored.
          return [
            {
              name: SCORE_TRACE_QUEUE,
              data: { traceId },
              opts: { ...jobOptions, jobId: `${traceId}-rescore-${scoredAt}` },
            },
          ];
        });
        if (jobs.length) await queue.addBulk(jobs);
      } catch (error) {
        if (error instanceof SpanscoreError) throw error;
        throw new SpanscoreError('SS_INGEST_UNAVAILABLE', `Redis: ${(error as Error).message}`, {
          retryAfterSeconds: 5,
          cause: error,
        });
      }
    },
    close: () => queue.close(),
  };
}
