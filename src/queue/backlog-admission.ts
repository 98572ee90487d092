/** What the receiver knows of the backlog when it decides whether to take a request. */
export interface BacklogState {
  /** Traces waiting or delayed in the queue. */
  queuedTraces: number;
  /** When the oldest unscored trace's job was queued (Unix ms); `undefined` when none waits. */
  oldestQueuedAtMs: number | undefined;
  /** The fullest Redis node's used memory over its `maxmemory` (0 without a limit). */
  redisMemoryRatio: number;
  /** When a worker was last seen alive (Unix ms); `undefined` when none has been. */
  workerSeenAtMs: number | undefined;
}

/** The limits of `admission` and `assembly.maxQueuedTraces`. */
export interface AdmissionLimits {
  maxQueuedTraces: number;
  maxBacklogAgeMs: number;
  maxRedisMemoryRatio: number;
  workerAbsenceMs: number;
}

/** Why a request is refused: the metric's `reason` label. */
export type RefusalReason = 'queued_traces' | 'backlog_age' | 'redis_memory' | 'no_workers';

/** A refusal: 429 for a backlog full by count (the client sends too much), else 503. */
export interface Refusal {
  reason: RefusalReason;
  status: 429 | 503;
  retryAfterSeconds: number;
  message: string;
}

/**
 * Whether the backlog can keep one more request: the receiver's promise is that what it answers
 * 200 to is scored, so it refuses (with a retryable status and Retry-After) what it could only
 * lose. In order: Redis nearly full (a write would fail or evict), no worker seen for
 * `workerAbsenceMs` (counted from `startedAtMs` when none has been seen yet), the oldest unscored
 * trace older than `maxBacklogAgeMs` (workers down or too slow), too many traces queued. Pure.
 */
export function admissionVerdict(
  state: BacklogState,
  limits: AdmissionLimits,
  nowMs: number,
  startedAtMs: number,
): Refusal | undefined {
  if (state.redisMemoryRatio >= limits.maxRedisMemoryRatio)
    return {
      reason: 'redis_memory',
      status: 503,
      retryAfterSeconds: 30,
      message: `Redis is ${Math.round(state.redisMemoryRatio * 100)}% full (admission.maxRedisMemoryRatio ${limits.maxRedisMemoryRatio}): nothing more is accepted until workers drain it`,
    };
  const seenAt = Math.max(state.workerSeenAtMs ?? 0, startedAtMs);
  if (nowMs - seenAt > limits.workerAbsenceMs)
    return {
      reason: 'no_workers',
      status: 503,
      retryAfterSeconds: 30,
      message: `no worker has been seen for ${Math.round((nowMs - seenAt) / 1000)} s (admission.workerAbsenceMs ${limits.workerAbsenceMs} ms): start spanscore worker`,
    };
  if (
    state.oldestQueuedAtMs !== undefined &&
    nowMs - state.oldestQueuedAtMs > limits.maxBacklogAgeMs
  )
    return {
      reason: 'backlog_age',
      status: 503,
      retryAfterSeconds: 30,
      message: `the oldest unscored trace has waited ${Math.round((nowMs - state.oldestQueuedAtMs) / 1000)} s (admission.maxBacklogAgeMs ${limits.maxBacklogAgeMs} ms): the workers are down or too few`,
    };
  if (state.queuedTraces >= limits.maxQueuedTraces)
    return {
      reason: 'queued_traces',
      status: 429,
      retryAfterSeconds: 2,
      message: `${state.queuedTraces} traces are waiting to be scored (limit ${limits.maxQueuedTraces})`,
    };
  return undefined;
}
