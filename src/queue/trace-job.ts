import { randomUUID } from 'node:crypto';
import type { JobsOptions } from 'bullmq';
import { BACKOFF_STRATEGY, UNBOUNDED_ATTEMPTS, type ExportRetryPolicy } from './export-retry.js';

/**
 * A trace job's data. The receiver queues one job per request (per queue shard) holding every
 * trace the request carried spans of: `traceIds`, at most {@link MAX_TRACES_PER_JOB}. A job holds
 * one trace (`traceId`) when a worker hands over a trace whose scoring failed in such a job
 * (`handedOver`: it is retried on its own, with its own attempts, or, with `failedReason`, fails
 * at once), when late spans rescore a trace, and for jobs queued before many-trace jobs existed.
 * `exportRetry`: the trace's results were recorded and only its export is retried (see
 * `ScoreOptions.exportRetry`).
 */
export type TraceJobData =
  | { traceId: string; handedOver?: true; failedReason?: string; exportRetry?: true }
  | { traceIds: string[] };

/**
 * Traces per many-trace job. BullMQ's work per job (a delayed add, a promotion, a move to active
 * and one to finished, five event-stream entries: about 70 µs of Redis and 55 µs of worker CPU
 * measured here) is then shared by up to this many traces.
 */
export const MAX_TRACES_PER_JOB = 64;

/** Traces a job holds, on average, for {@link jobsAtOnce}: a request of a few hundred spans. */
export const TRACES_PER_JOB_EXPECTED = 16;

/**
 * The trace jobs a worker runs at once to score about `traces` traces at once: one per
 * {@link TRACES_PER_JOB_EXPECTED} traces, at least one. Taking more would hold jobs (and their
 * traces, in memory) that another worker process could be running, and only add waiting.
 */
export function jobsAtOnce(traces: number): number {
  return Math.max(1, Math.ceil(traces / TRACES_PER_JOB_EXPECTED));
}

/** The traces a job holds. */
export function traceIdsOf(data: TraceJobData): string[] {
  return 'traceIds' in data ? data.traceIds : [data.traceId];
}

/**
 * A many-trace job's id: `b<traces>-<uuid>`. The count in the id lets the receiver's backlog
 * check count traces, not jobs, without reading any job (see `QUEUED_TRACES`); a one-trace job's
 * id is its trace id (or `<traceId>-rescore-<ms>`), counted as one.
 */
export function manyTraceJobId(traces: number): string {
  return `b${traces}-${randomUUID()}`;
}

/**
 * The job that rescores a trace with spans that came after it was scored at `scoredAtMs`: one id
 * per scoring generation, whoever saw those spans first (the receiver for late spans, the worker
 * for spans that raced its scoring), so the two add one job. Not the trace id: the job that
 * scored the trace may still be finishing, and an add with its id would be ignored.
 */
export function rescoreJobId(traceId: string, scoredAtMs: number | string): string {
  return `${traceId}-rescore-${scoredAtMs}`;
}

/**
 * The traces of request jobs waiting, delayed, prioritized or active in one shard's queue, and
 * when the oldest of the waiting and delayed jobs was queued. Active jobs count because a worker
 * takes jobs ahead of its scoring slots (they wait there, or for their export: see
 * `DELIVERING_JOBS`), up to a bound, and their traces are still in Redis. A trace's own job (a
 * retried export, a rescore, a handed-over failure) is not counted: an outage of the tracing
 * backend, whose retries wait as such jobs for up to an hour, must not make the receiver refuse
 * traffic. KEYS: the queue's `wait` list, `delayed` and `prioritized` sets, `active` list.
 * ARGV: the queue's key base (`<prefix>:<name>`; a job's hash is `<base>:<id>`, in the same slot).
 * One pass over their job ids, once a second at most. The oldest: the request job (`b…`) nearest
 * the wait list's tail (BullMQ takes from the tail) and the one due first in `delayed`, by their
 * `timestamp`. Returns the traces and the oldest queued-at ms (or empty).
 */
export const QUEUED_TRACES = `
local total = 0
local function count(id)
  local n = tonumber(string.match(id, '^b(%d+)%-'))
  if n then total = total + n end
  return n ~= nil
end
local oldest = nil
local function consider(id)
  local t = tonumber(redis.call('HGET', ARGV[1] .. ':' .. id, 'timestamp') or '')
  if t and (not oldest or t < oldest) then oldest = t end
end
local wait = redis.call('LRANGE', KEYS[1], 0, -1)
local found = false
for i = #wait, 1, -1 do
  if count(wait[i]) and not found then found = true; consider(wait[i]) end
end
found = false
for _, id in ipairs(redis.call('ZRANGE', KEYS[2], 0, -1)) do
  if count(id) and not found then found = true; consider(id) end
end
for _, id in ipairs(redis.call('ZRANGE', KEYS[3], 0, -1)) do count(id) end
for _, id in ipairs(redis.call('LRANGE', KEYS[4], 0, -1)) do count(id) end
return { total, oldest and tostring(oldest) or '' }
`;

/** Retries of trace jobs: how many and how far apart, the same wherever a trace job is added. */
export interface TraceJobRetries {
  /** Export failures are retried by age; other failures `attempts` times. */
  exportRetry?: ExportRetryPolicy;
  /** Tries for failures other than exports (`worker.attempts`). */
  attempts: number;
  /** The first backoff, doubling (`worker.backoffMs`). */
  backoffMs: number;
}

/** BullMQ options of every trace job, whoever adds it (receiver or worker). */
export function traceJobOptions(retries: TraceJobRetries, delayMs: number): JobsOptions {
  return {
    delay: delayMs,
    // With export retry by age, the worker decides when to give up (see `shouldRetry`).
    attempts: retries.exportRetry ? UNBOUNDED_ATTEMPTS : retries.attempts,
    backoff: retries.exportRetry
      ? { type: BACKOFF_STRATEGY, delay: retries.backoffMs }
      : { type: 'exponential', delay: retries.backoffMs },
    removeOnComplete: true, // so a rescore can reuse the trace id as job id
    removeOnFail: { count: 1000 },
  };
}
