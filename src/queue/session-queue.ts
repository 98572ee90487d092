import { Queue, Worker } from 'bullmq';
import type { SpanDigest } from '../ingest/span-digest.js';
import type { RedisClient } from '../redis/redis-connection.js';
import { RedisSessionStore, type AddedSessionTrace } from '../redis/redis-session-store.js';
import type { SessionTraceSpans } from '../score/score-session.js';
import { sessionQueueLocation } from './queue-shards.js';
import {
  sessionCut,
  sessionDelayMs,
  type SessionPass,
  type SessionPolicy,
  type SessionTurnInput,
} from './session-policy.js';

/** A session job: which session to score (its traces are in its session hash). */
export interface SessionJobData {
  sessionId: string;
}

/** Options of {@link createSessionQueue}. */
export interface SessionQueueOptions {
  /** Plain commands (the session hash). */
  redis: RedisClient;
  /** A BullMQ connection (`maxRetriesPerRequest: null`). */
  connection: RedisClient;
  prefix: string;
  policy: SessionPolicy;
  /** Tries per session job, and the first backoff (exponential). */
  attempts: number;
  backoffMs: number;
  now?: () => number;
}

/** The producer side of the session queue: what a trace worker calls for each scored trace. */
export interface SessionQueue {
  /**
   * Adds a scored trace to its session in Redis and (re)schedules the session's job: `idleMs`
   * after this trace, at once when it ends the session or a bound cut it. Resolves `full` when
   * the session was full, `no_session` when an untagged trace had no session to join (neither is
   * added). Rejects when Redis does, for the trace job to be retried: nothing is lost between the
   * two steps.
   */
  add(turn: SessionTurnInput, spans: readonly SpanDigest[]): Promise<AddedSessionTrace['outcome']>;
  readonly queue: Queue<SessionJobData>;
  close(): Promise<void>;
}

/**
 * The session queue's producer. One job per session at a time (BullMQ deduplication by session
 * id): a trace while the job waits reschedules it (`reschedule`); a trace while it runs queues
 * one more run after it (`keepLastIfActive`); a trace after it ran (a late turn) starts a new
 * one, which scores the session again.
 */
export function createSessionQueue(options: SessionQueueOptions): SessionQueue {
  const now = options.now ?? Date.now;
  const { policy } = options;
  const where = sessionQueueLocation(options.prefix, options.connection.isCluster);
  const queue = new Queue<SessionJobData>(where.name, {
    connection: options.connection,
    prefix: where.prefix,
  });
  const store = new RedisSessionStore(options.redis, options.prefix, policy);
  return {
    queue,
    async add(turn, spans) {
      const t = now();
      const added = await store.add(turn.sessionId, turn.traceId, spans, t, turn.tagged);
      if (added.outcome !== 'added') return added.outcome;
      const cut = sessionCut(policy, added.traces, added.firstAtMs, t) !== undefined;
      await queue.add(
        where.name,
        { sessionId: turn.sessionId },
        {
          delay: sessionDelayMs(policy, turn, cut, t - added.firstAtMs),
          deduplication: { id: turn.sessionId, reschedule: true, keepLastIfActive: true },
          attempts: options.attempts,
          backoff: { type: 'exponential', delay: options.backoffMs },
          removeOnComplete: true,
          removeOnFail: { count: 1000 },
        },
      );
      return 'added';
    },
    close: () => queue.close(),
  };
}

/** Options of {@link createSessionWorker}. */
export interface SessionWorkerOptions {
  redis: RedisClient;
  connection: RedisClient;
  prefix: string;
  policy: SessionPolicy;
  concurrency: number;
  lockDurationMs: number;
  stalledIntervalMs: number;
  /** Scores the session (and exports it); a rejection retries the job. */
  process: (sessionId: string, traces: SessionTraceSpans[], pass: SessionPass) => Promise<unknown>;
  /** A session job found no traces: the session hash expired (`maxAgeMs`). */
  onGone?: (sessionId: string) => void;
  onError?: (error: Error) => void;
  now?: () => number;
}

/**
 * The BullMQ worker of the session queue: reads the session's traces from Redis and scores them
 * as one. A worker killed mid-session loses nothing: the traces stay in Redis, the delayed job in
 * the queue, and an active job is taken over by another worker once stalled.
 */
export function createSessionWorker(options: SessionWorkerOptions): Worker<SessionJobData> {
  const now = options.now ?? Date.now;
  const where = sessionQueueLocation(options.prefix, options.connection.isCluster);
  const store = new RedisSessionStore(options.redis, options.prefix, options.policy);
  const worker = new Worker<SessionJobData>(
    where.name,
    async job => {
      const { sessionId } = job.data;
      const held = await store.read(sessionId);
      if (!held) {
        options.onGone?.(sessionId);
        return;
      }
      const cut = sessionCut(options.policy, held.traces.length, held.firstAtMs, now());
      await options.process(sessionId, held.traces, { part: 1, cut });
    },
    {
      connection: options.connection,
      prefix: where.prefix,
      concurrency: options.concurrency,
      lockDuration: options.lockDurationMs,
      stalledInterval: options.stalledIntervalMs,
    },
  );
  worker.on('error', error => options.onError?.(error));
  return worker;
}
