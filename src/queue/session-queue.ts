import { Queue } from 'bullmq';
import type { SpanDigest } from '../ingest/span-digest.js';
import type { RedisClient } from '../redis/redis-connection.js';
import {
  RedisSessionStore,
  type AddedSessionTurn,
  type SessionStoreBounds,
} from '../redis/redis-session-store.js';
import { redisFailure } from '../redis/redis-failure.js';
import {
  exportRetriesOutlastMs,
  LATE_JOB_MARGIN_MS,
  type ExportRetryPolicy,
} from './export-retry.js';
import { partMember } from '../redis/session-keys.js';
import { sessionQueueLocation } from './queue-shards.js';
import { sessionRefusedCut } from './session-refused-cut.js';
import type { SessionPass, SessionPolicy, SessionTurnInput } from './session-policy.js';

/**
 * A session job: which part of which session to score (its turns are in Redis). A job of the
 * previous release has no `part`: part 1.
 */
export interface SessionJobData {
  sessionId: string;
  part?: number;
  /**
   * An earlier try recorded the part's results and failed to export them: which traces it scored
   * (`tracesScored` of `session-worker.ts`). A try over the same traces exports only; a part that took a turn since
   * is recorded again. The previous release neither writes nor reads it.
   */
  exportRetry?: string;
  /**
   * With `exportRetry`: since when (Unix ms) the export of those traces fails, and how many of its
   * tries failed; export failures are retried by age from it (`export.retryMaxAgeMs`), with
   * backoff by its tries. A job without them (the previous release's) starts counting at its next
   * failed export.
   */
  exportFailingSinceMs?: number;
  exportTries?: number;
}

/** The byte bounds of sessions (`sessions.maxSessionBytes`, `sessions.maxBytes`). */
export interface SessionByteBounds {
  maxSessionBytes: number;
  maxBytes: number;
}

/** How the session job is retried (the trace job's settings) and taken over when stalled. */
export interface SessionJobTiming {
  attempts: number;
  backoffMs: number;
  lockDurationMs: number;
  stalledIntervalMs: number;
  /** Export failures are retried by age, as a trace job's (`export.retryMaxAgeMs`); others `attempts` times. */
  exportRetry?: ExportRetryPolicy;
}

/**
 * What a pass may be late by, past the latest time it is due (`maxAgeMs` after its part's first
 * turn), that a part's keys must outlive: every retry's backoff (exponential: the last waits
 * `backoffMs × 2^(attempts − 2)`), a stalled job's takeover (`lockDurationMs` +
 * `stalledIntervalMs`) per attempt, the export's retries by age (`exportRetry.maxAgeMs`, and
 * the longest backoff after it), and an hour for a backlog of session jobs or a worker outage. A
 * pass later than that finds nothing and says so in the log.
 */
export function sessionLifeMarginMs(timing: SessionJobTiming): number {
  const retries = Math.max(0, timing.attempts - 1);
  const backoff = timing.backoffMs * (2 ** retries - 1);
  const exports = timing.exportRetry ? exportRetriesOutlastMs(timing.exportRetry) : 0;
  const takeovers = timing.attempts * (timing.lockDurationMs + timing.stalledIntervalMs);
  return backoff + takeovers + exports + LATE_JOB_MARGIN_MS;
}

/**
 * How long a part of a session is kept after its first turn: `maxAgeMs` (the latest its last
 * pass is due), `idleMs` (as a turn just before that schedules it), and the margin above.
 */
export function sessionLifeMs(policy: SessionPolicy, timing: SessionJobTiming): number {
  return policy.maxAgeMs + policy.idleMs + sessionLifeMarginMs(timing);
}

/**
 * The bounds of {@link RedisSessionStore} for a policy, its byte bounds and job timing; `recordsKeptMs`:
 * how long run records are kept (the results' retention) after a part's last pass, which comes
 * at most the part's life after it opened: a session's latest part number is kept for both
 * (`SessionStoreBounds.seenMs`), so it outlives that part's record.
 */
export function sessionStoreBounds(
  policy: SessionPolicy,
  bytes: SessionByteBounds,
  timing: SessionJobTiming,
  recordsKeptMs = 0,
): SessionStoreBounds {
  const lifeMs = sessionLifeMs(policy, timing);
  // A part's record lives `recordsKeptMs` from its last pass, up to `lifeMs` after the part opened.
  return { ...policy, ...bytes, lifeMs, seenMs: Math.ceil(lifeMs + recordsKeptMs) };
}

/** Options of {@link createSessionQueue}. */
export interface SessionQueueOptions {
  /** Plain commands (the session's keys and the total's). */
  redis: RedisClient;
  /** A BullMQ connection (`maxRetriesPerRequest: null`). */
  connection: RedisClient;
  prefix: string;
  policy: SessionPolicy;
  bytes: SessionByteBounds;
  timing: SessionJobTiming;
  /**
   * How long run records are kept (the results' retention): a session's latest part number is
   * kept as long, so that a turn after its parts' keys are gone opens its next part, never part 1.
   * @defaultValue the parts' own life
   */
  recordsKeptMs?: number;
  now?: () => number;
}

/** What adding a turn to its session did, as the trace worker acts on it. */
export interface SessionTurnAdded {
  outcome: AddedSessionTurn['outcome'];
  /**
   * With `refused`: the pass the turn is to be scored alone as, at once (the part it would have
   * opened, cut `max_bytes` as `sessionRefusedCut` says, what it continues, the session's test
   * case id), as the memory driver scores such a turn; `marked` false when the part is not on
   * record as closed (the marks' bytes were full); `again`: the turn was refused before (a
   * retried trace job), already counted. `undefined` when no part is known (the session moved on
   * each time the turn was added: see `AddedSessionTurn.refused`).
   */
  alone?: { pass: SessionPass; marked: boolean; again: boolean } | undefined;
}

/** The producer side of the session queue: what a trace worker calls for each scored trace. */
export interface SessionQueue {
  /**
   * Adds a scored trace to its session in Redis and (re)schedules its part's job: `idleMs` after
   * this trace (within the part's `maxAgeMs`), at once when it ends the session or its part is
   * cut; a part this trace closed is scored at once too. Resolves `no_session` when an untagged
   * trace had no session to join, `refused` when it would have opened a session or part and the
   * bytes in all (`sessions.maxBytes`) are full (neither is held; `alone`: the pass the caller
   * scores it alone as). Rejects when Redis does, with an `upstream` error (`SS_REDIS_FAILED`,
   * see `redisFailure`), for the trace job to be retried; any other failure (a bug) with
   * `SS_INTERNAL_ERROR`, which fails the job without a retry: nothing is lost between the steps (a
   * turn added again replaces itself; a refused one is refused as the same part again, never
   * added to a later one).
   */
  add(turn: SessionTurnInput, spans: readonly SpanDigest[]): Promise<SessionTurnAdded>;
  readonly queue: Queue<SessionJobData>;
  close(): Promise<void>;
}

/**
 * The session queue's producer. One job per part of a session at a time (BullMQ deduplication by
 * `<part>:<session id>`): a trace while the job waits reschedules it (`reschedule`); a trace
 * while it runs queues one more run after it (`keepLastIfActive`); a trace after it ran (a late
 * turn) starts a new one, which scores the part again.
 */
export function createSessionQueue(options: SessionQueueOptions): SessionQueue {
  const now = options.now ?? Date.now;
  const where = sessionQueueLocation(options.prefix, options.connection.isCluster);
  const queue = new Queue<SessionJobData>(where.name, {
    connection: options.connection,
    prefix: where.prefix,
  });
  const store = new RedisSessionStore(
    options.redis,
    options.prefix,
    sessionStoreBounds(options.policy, options.bytes, options.timing, options.recordsKeptMs),
    now,
  );
  const schedule = (sessionId: string, part: number, delay: number) =>
    queue.add(
      where.name,
      { sessionId, part },
      {
        delay,
        deduplication: {
          id: partMember(sessionId, part),
          reschedule: true,
          keepLastIfActive: true,
        },
        attempts: options.timing.attempts,
        backoff: { type: 'exponential', delay: options.timing.backoffMs },
        removeOnComplete: true,
        removeOnFail: { count: 1000 },
      },
    );
  return {
    queue,
    add: (turn, spans) =>
      addTurn(turn, spans).catch((error: unknown) => {
        throw redisFailure(`adding trace ${turn.traceId} to its session`, error);
      }),
    close: () => queue.close(),
  };

  async function addTurn(
    turn: SessionTurnInput,
    spans: readonly SpanDigest[],
  ): Promise<SessionTurnAdded> {
    const added = await store.add(turn.sessionId, turn.traceId, spans, now(), {
      opens: turn.tagged,
      ends: turn.ends,
      testCaseId: turn.testCaseId,
    });
    if (added.closed) await schedule(turn.sessionId, added.closed.part, 0);
    if (added.outcome === 'added') await schedule(turn.sessionId, added.part, added.delayMs);
    const refused = added.outcome === 'refused' ? added.refused : undefined;
    if (!refused) return { outcome: added.outcome };
    const pass: SessionPass = {
      part: added.part,
      cut: sessionRefusedCut(options.bytes.maxBytes, refused.marked),
      continues: refused.continues,
      testCaseId: refused.testCaseId,
    };
    return {
      outcome: added.outcome,
      alone: { pass, marked: refused.marked, again: refused.again },
    };
  }
}
