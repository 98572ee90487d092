import { Queue, UnrecoverableError, Worker, type Job } from 'bullmq';
import type { RedisClient } from '../redis/redis-connection.js';
import type { SpanDigest } from '../ingest/span-digest.js';
import type { JudgeRateLimit } from '../score/llm/rate-limited-judge.js';
import { classifyFailure, judgeErrorsToRetry } from './classify-failure.js';
import {
  backoffDelay,
  isExportFailure,
  shouldRetry,
  type ExportRetryPolicy,
} from './export-retry.js';
import { exportGaveUp } from './score-trace.processor.js';
import type { JudgeJobData } from './judge-queue.js';
import { judgeQueueLocation } from './queue-shards.js';
import { decodeSpanBatch } from '../redis/span-batch-codec.js';
import { decodeSpanDigest } from '../redis/span-digest-codec.js';

/** Options of {@link createJudgeWorker}. */
export interface JudgeWorkerOptions {
  /** A BullMQ connection (`maxRetriesPerRequest: null`). */
  connection: RedisClient;
  /** Key prefix (`queue.prefix`). */
  prefix: string;
  /**
   * Runs a trace's LLM scorers and exports their spans. Scorer errors for which `propagate` is
   * true must reject the call (pass it to `processTrace`); others become `failed` results.
   */
  process: (
    traceId: string,
    spans: SpanDigest[],
    options: { propagate: (error: unknown) => boolean | Error; exportRetry: boolean },
  ) => Promise<unknown>;
  /** Judge calls started per interval, across every worker of the queue. */
  rateLimit: JudgeRateLimit;
  /** Jobs at once in this worker. */
  concurrency: number;
  /** Tries for judge errors and the first backoff; export failures are retried by age. */
  attempts: number;
  backoffMs: number;
  exportRetry?: ExportRetryPolicy;
  /** BullMQ job lock and stalled-job check. */
  lockDurationMs: number;
  stalledIntervalMs: number;
  onError?: (error: Error) => void;
}

/**
 * The BullMQ worker of the judge queue. Its limiter starts at most `rateLimit.max` jobs per
 * `rateLimit.durationMs` across all workers. A 429 from the judge (`SS_JUDGE_RATE_LIMITED`) pauses
 * the whole queue for the server's Retry-After (10 s without one) and puts the job back without
 * using an attempt, counted in the job: past `MAX_RATE_LIMITED_WAITS` of them, the next 429 is a
 * `failed` result saying the endpoint kept answering 429. Other retryable judge errors (5xx, timeouts) and export failures retry the job
 * with backoff; on its last attempt a judge error becomes a `failed` result instead, so the trace
 * still gets its evaluation spans. The judge cache makes a retried job free for the calls that
 * had already succeeded.
 */
export function createJudgeWorker(options: JudgeWorkerOptions): Worker<JudgeJobData> {
  const { prefix, name } = judgeQueueLocation(
    options.prefix ?? 'spanscore',
    options.connection.isCluster,
  );
  const pauser = new Queue(name, { connection: options.connection, prefix });

  async function processor(job: Job<JudgeJobData>): Promise<{ spans: number }> {
    const data = job.data.spans;
    const spans =
      typeof data === 'string'
        ? decodeSpanBatch(Buffer.from(data, 'base64'))
        : data.map(decodeSpanDigest);
    const attempts = options.exportRetry ? options.attempts : (job.opts.attempts ?? 1);
    const final = job.attemptsMade + 1 >= attempts;
    const exportRetry = job.data.exportRetry === true;
    const rateLimitedWaits = job.data.rateLimitedWaits ?? 0;
    try {
      await options.process(job.data.traceId, spans, {
        propagate: judgeErrorsToRetry(final, rateLimitedWaits),
        exportRetry,
      });
    } catch (error) {
      // Its results were recorded: every later try retries the export only.
      if (isExportFailure(error) && !exportRetry)
        await job.updateData({ ...job.data, exportRetry: true });
      const failure = classifyFailure(error);
      if (failure.action === 'rate_limited') {
        // Counted in the job, which a 429 puts back without using an attempt: past
        // MAX_RATE_LIMITED_WAITS, `propagate` makes the next 429 a `failed` result.
        await job.updateData({ ...job.data, rateLimitedWaits: rateLimitedWaits + 1 });
        await pauser.rateLimit(failure.pauseMs);
        throw Worker.RateLimitError();
      }
      if (failure.action === 'fail')
        throw new UnrecoverableError(error instanceof Error ? error.message : String(error));
      if (!options.exportRetry) throw error;
      const decision = shouldRetry(
        error,
        { attemptsMade: job.attemptsMade, attempts, ageMs: Date.now() - job.timestamp },
        options.exportRetry,
      );
      if (!decision.retry) throw exportGaveUp(decision.reason, error);
      throw error;
    }
    return { spans: spans.length };
  }

  const worker = new Worker<JudgeJobData>(name, processor, {
    connection: options.connection,
    prefix,
    concurrency: options.concurrency,
    lockDuration: options.lockDurationMs,
    stalledInterval: options.stalledIntervalMs,
    limiter: { max: options.rateLimit.max, duration: options.rateLimit.durationMs },
    ...(options.exportRetry && {
      settings: {
        backoffStrategy: (attemptsMade: number) =>
          backoffDelay(attemptsMade, options.backoffMs, options.exportRetry!.maxBackoffMs),
      },
    }),
  });
  worker.on('error', error => options.onError?.(error));
  worker.on('closed', () => void pauser.close());
  return worker;
}
