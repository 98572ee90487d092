import { Queue } from 'bullmq';
import type { RedisClient } from '../redis/redis-connection.js';
import { judgeQueueLocation, traceQueueShards } from './queue-shards.js';
import { traceIdsOf, type TraceJobData } from './trace-job.js';

/** The queues `spanscore jobs` reads: trace jobs (the deterministic pass) and judge jobs. */
export const JOB_QUEUE_NAMES = ['trace', 'judge'] as const;
export type JobQueueName = (typeof JOB_QUEUE_NAMES)[number];

const STATES = ['waiting', 'delayed', 'active', 'failed', 'completed'] as const;

/** One job as `spanscore jobs` lists it. */
export interface JobSummary {
  queue: JobQueueName;
  id: string;
  /** The job's trace, or its traces separated by commas (a job holding a request's traces). */
  traceId: string;
  state: 'failed' | 'delayed' | 'waiting';
  attemptsMade: number;
  /** Why its last attempt failed (BullMQ's `failedReason`); `''` when it has not failed. */
  reason: string;
  /** When it was created, and when it last finished an attempt (Unix ms). */
  createdAtUnixMs: number;
  finishedAtUnixMs: number | null;
}

/** Counts per state and the newest jobs in each of `failed`, `delayed`, `waiting`. */
export interface JobsReport {
  counts: Record<JobQueueName, Record<string, number>>;
  jobs: JobSummary[];
}

/**
 * Reads and re-drives the BullMQ driver's work. Safe while workers run: it reads with BullMQ's
 * own commands, and a retry moves a failed job back to `waiting` atomically (BullMQ's
 * `job.retry`), so a worker takes it like any other; evaluation span ids are derived from the
 * trace, so a re-driven job rewrites its spans, never duplicates them.
 */
export function createJobsClient(connection: RedisClient, prefix: string, shards = 1) {
  const open = (where: { prefix: string; name: string }): Queue =>
    new Queue(where.name, { connection, prefix: where.prefix });
  // Every shard of the trace queue is read as one.
  const byName: Record<JobQueueName, Queue[]> = {
    trace: traceQueueShards(prefix, shards, connection.isCluster).map(open),
    judge: [open(judgeQueueLocation(prefix, connection.isCluster))],
  };
  const queues = Object.entries(byName).flatMap(([key, list]) =>
    list.map(queue => [key, queue] as [JobQueueName, Queue]),
  );

  return {
    /** Counts per queue and state, and up to `limit` newest jobs per listed state. */
    async report(limit: number): Promise<JobsReport> {
      const counts = { trace: {}, judge: {} } as JobsReport['counts'];
      const jobs: JobSummary[] = [];
      for (const [key, queue] of queues) {
        for (const [state, n] of Object.entries(await queue.getJobCounts(...STATES)))
          counts[key][state] = (counts[key][state] ?? 0) + n;
        for (const state of ['failed', 'delayed', 'waiting'] as const) {
          for (const job of await queue.getJobs([state], 0, limit - 1, false)) {
            if (!job) continue;
            jobs.push({
              queue: key,
              id: job.id ?? '',
              traceId: traceIdsOfJob(job.data),
              state,
              attemptsMade: job.attemptsMade,
              reason: job.failedReason ?? '',
              createdAtUnixMs: job.timestamp,
              finishedAtUnixMs: job.finishedOn ?? null,
            });
          }
        }
      }
      return { counts, jobs };
    },

    /**
     * Moves failed jobs back to `waiting`, those whose trace id or failure reason contains
     * `filter` (all without one), in `queue` (both without one). Returns the jobs re-driven.
     */
    async retryFailed(
      options: { filter?: string; queue?: JobQueueName } = {},
    ): Promise<JobSummary[]> {
      const done: JobSummary[] = [];
      for (const [key, queue] of queues) {
        if (options.queue && options.queue !== key) continue;
        const failed = await queue.getFailed(0, -1);
        for (const job of failed) {
          const traceId = traceIdsOfJob(job.data);
          const reason = job.failedReason ?? '';
          if (
            options.filter &&
            !traceId.includes(options.filter) &&
            !reason.includes(options.filter)
          )
            continue;
          await job.retry('failed');
          done.push({
            queue: key,
            id: job.id ?? '',
            traceId,
            state: 'failed',
            attemptsMade: job.attemptsMade,
            reason,
            createdAtUnixMs: job.timestamp,
            finishedAtUnixMs: job.finishedOn ?? null,
          });
        }
      }
      return done;
    },

    close: () => Promise.all(queues.map(([, q]) => q.close())).then(() => undefined),
  };
}

/** What a job summary shows of a trace or judge job's traces. */
function traceIdsOfJob(data: unknown): string {
  const d = data as Partial<{ traceId: string; traceIds: string[] }> | undefined;
  return d?.traceIds || d?.traceId ? traceIdsOf(d as TraceJobData).join(',') : '';
}
