import { BACKOFF_STRATEGY, UNBOUNDED_ATTEMPTS, type ExportRetryPolicy } from './export-retry.js';
import { Queue } from 'bullmq';
import type { RedisClient } from '../redis/redis-connection.js';
import type { SpanDigest } from '../ingest/span-digest.js';
import { JUDGE_QUEUE, judgeQueueLocation } from './queue-shards.js';
import { encodeSpanBatch } from '../redis/span-batch-codec.js';

export { JUDGE_QUEUE } from './queue-shards.js';

/** A judge job: the trace's spans travel with it, since the span buffer drops them once scored. */
export interface JudgeJobData {
  traceId: string;
  /**
   * The trace's spans: one `encodeSpanBatch` buffer, base64. (Jobs queued before that codec hold
   * an array of JSON digests; the judge worker reads both.)
   */
  spans: string | string[];
  /** The judge pass's results were recorded; only its export is retried. */
  exportRetry?: true;
  /** Judge 429s this job waited out (they use no attempt); bounded by `MAX_RATE_LIMITED_WAITS`. */
  rateLimitedWaits?: number;
}

/** Options of {@link createJudgeQueue}. */
export interface JudgeQueueOptions {
  /** A BullMQ connection (`maxRetriesPerRequest: null`). */
  connection: RedisClient;
  /** @defaultValue 'spanscore' */
  prefix?: string;
  /** Tries per job for 5xx, timeouts and export failures, and the first backoff (exponential). */
  attempts: number;
  backoffMs: number;
  /** With it, the worker decides when to give up (export failures by age; see `shouldRetry`). */
  exportRetry?: ExportRetryPolicy;
}

/** The producer side of the judge queue. */
export interface JudgeQueue {
  queue: Queue<JudgeJobData>;
  /** Queues LLM scoring of a trace; the same trace and span count twice is one job. */
  enqueue(traceId: string, spans: readonly SpanDigest[]): Promise<void>;
  close(): Promise<void>;
}

/**
 * The judge queue's producer, used by the trace worker once a trace's deterministic scorers are
 * done and exported. Job id `<traceId>-llm-<span count>`: a retried trace job does not queue its
 * LLM scoring twice, and a rescore with late spans (more spans) gets its own job. Completed jobs
 * are kept an hour so their ids keep deduplicating.
 */
export function createJudgeQueue(options: JudgeQueueOptions): JudgeQueue {
  const where = judgeQueueLocation(options.prefix ?? 'spanscore', options.connection.isCluster);
  const queue = new Queue<JudgeJobData>(where.name, {
    connection: options.connection,
    prefix: where.prefix,
  });
  return {
    queue,
    async enqueue(traceId, spans) {
      await queue.add(
        JUDGE_QUEUE,
        { traceId, spans: encodeSpanBatch(spans).toString('base64') },
        {
          jobId: `${traceId}-llm-${spans.length}`,
          attempts: options.exportRetry ? UNBOUNDED_ATTEMPTS : options.attempts,
          backoff: options.exportRetry
            ? { type: BACKOFF_STRATEGY, delay: options.backoffMs }
            : { type: 'exponential', delay: options.backoffMs },
          removeOnComplete: { age: 3600, count: 10_000 },
          removeOnFail: { count: 1000 },
        },
      );
    },
    close: () => queue.close(),
  };
}
