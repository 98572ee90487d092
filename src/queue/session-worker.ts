import { createHash } from 'node:crypto';
import { DelayedError, Worker, type Job } from 'bullmq';
import { SpanscoreError } from '../errors/spanscore-error.js';
import type { RedisClient } from '../redis/redis-connection.js';
import {
  RedisSessionStore,
  type HeldSessionPart,
  type SessionStoreBounds,
  type StoredSessionCut,
} from '../redis/redis-session-store.js';
import type { SessionTraceSpans } from '../score/score-session.js';
import { backoffDelay, isExportFailure, shouldRetry } from './export-retry.js';
import { exportGaveUp } from './score-trace.processor.js';
import { stalledJobFailure } from './stalled-job-failure.js';
import { sessionQueueLocation } from './queue-shards.js';
import { sessionPartCut } from './session-part-cut.js';
import { continuesAfter, type SessionPass, type SessionPolicy } from './session-policy.js';
import {
  sessionStoreBounds,
  type SessionByteBounds,
  type SessionJobData,
  type SessionJobTiming,
} from './session-queue.js';

/** Options of {@link createSessionWorker}. */
export interface SessionWorkerOptions {
  redis: RedisClient;
  connection: RedisClient;
  prefix: string;
  policy: SessionPolicy;
  bytes: SessionByteBounds;
  /** Its retries, as a trace job's: export failures by age (`exportRetry`), others by count. */
  timing: SessionJobTiming;
  concurrency: number;
  /**
   * Scores the part (and exports it); a rejection retries the job. `exportRetry`: an earlier try
   * over these traces was recorded and failed to export (`TraceScorer.scoreSession`).
   */
  process: (
    sessionId: string,
    traces: SessionTraceSpans[],
    pass: SessionPass,
    options: { exportRetry: boolean },
  ) => Promise<unknown>;
  /**
   * A part's pass ended failed (BullMQ then fails the job; the part's turns stay in Redis until a
   * later turn schedules it again or its keys expire), once a job: its last attempt failed, its
   * export was given up on (`isExportGiveUp`), or BullMQ failed the job without a pass ending it
   * (its worker stalled past BullMQ's `maxStalledCount`, or Redis failed before the pass ran): the
   * caller makes its end visible. Resolves once done; it should not reject (the job's own error
   * is what BullMQ keeps).
   */
  onLastAttemptFailed?: (
    sessionId: string,
    error: unknown,
    failed: { pass: SessionPass; traceIds: string[] },
  ) => Promise<void>;
  /** A try's export failed with `error` and is tried again after `delayMs` (its `tries`th failed export). */
  onExportRetry?: (
    sessionId: string,
    part: number,
    tries: number,
    delayMs: number,
    error: unknown,
  ) => void;
  /** A part's job found no turns: its keys expired (a pass later than their life) or released. */
  onGone?: (sessionId: string, part: number) => void;
  onError?: (error: Error) => void;
  now?: () => number;
}

/**
 * The BullMQ worker of the session queue: reads a part's turns from Redis and scores them as one.
 * A part cut at a bound (`maxTraces`, `maxAgeMs`, `maxSessionBytes`) gives its turns back once
 * its pass has run; any other is kept for a late turn (until its keys expire). A worker killed
 * mid-session loses nothing: the turns stay in Redis, the delayed job in the queue, and an active
 * job is taken over by another worker once stalled; one stalled more than BullMQ allows
 * (`maxStalledCount`, 1) is failed by BullMQ, and its part ends failed saying so.
 *
 * Retries are a trace job's: a failed export (`SS_EXPORT_FAILED`) is tried again, export only,
 * until it has failed for `timing.exportRetry.maxAgeMs` (backoff doubling from `backoffMs`, at
 * most `maxBackoffMs`), by putting the job back delayed (BullMQ's `moveToDelayed`: no attempt
 * used, and the job's options those of the previous release, so either release runs the other's
 * jobs); any other failure uses one of the job's `attempts`.
 */
export function createSessionWorker(options: SessionWorkerOptions): Worker<SessionJobData> {
  const now = options.now ?? Date.now;
  const where = sessionQueueLocation(options.prefix, options.connection.isCluster);
  const bounds = sessionStoreBounds(options.policy, options.bytes, options.timing);
  const store = new RedisSessionStore(options.redis, options.prefix, bounds, now);
  const exportPolicy = options.timing.exportRetry;
  /** Errors a pass already ended its part with: the `failed` event then has nothing to end. */
  const ended = new WeakSet<object>();
  /**
   * Ends a part's pass failed: the part no longer shows as under way (a cut part gives its turns
   * back: nothing scores it again), and the caller says so. `code`: its cut, as the store has it.
   */
  const end = async (
    sessionId: string,
    error: unknown,
    pass: SessionPass,
    held: HeldSessionPart,
    code: StoredSessionCut | undefined,
  ): Promise<void> => {
    if (error instanceof Object) ended.add(error);
    await store
      .passEnded(sessionId, pass.part, held, code)
      .catch((e: unknown) => options.onError?.(e as Error));
    await options.onLastAttemptFailed?.(sessionId, error, {
      pass,
      traceIds: held.traces.map(t => t.traceId),
    });
  };

  /**
   * An export that failed, tried again while it has failed for less than the policy's age: the
   * job is put back delayed, its data saying which traces were recorded and since when the
   * export fails. Returns when it is not (the caller fails the try); throws `DelayedError` when it
   * is, or the give-up (`exportGaveUp`) once the part was ended with it.
   */
  async function retryExport(
    job: Job<SessionJobData>,
    token: string | undefined,
    error: unknown,
    pass: SessionPass,
    held: HeldSessionPart,
    code: StoredSessionCut | undefined,
    scored: string,
  ): Promise<void> {
    const data = job.data;
    // Its results were recorded: a later try over the same traces exports only. (Not kept,
    // Redis failing too: that try records them again, and the job's own error stands.)
    const same = data.exportRetry === scored;
    const since = (same && data.exportFailingSinceMs) || now();
    const tries = (same ? (data.exportTries ?? 0) : 0) + 1;
    const next = { ...data, exportRetry: scored, exportFailingSinceMs: since, exportTries: tries };
    if (!exportPolicy) {
      if (!same) await job.updateData(next).catch(() => undefined);
      return;
    }
    const decision = shouldRetry(
      error,
      { attemptsMade: job.attemptsMade, attempts: options.timing.attempts, ageMs: now() - since },
      exportPolicy,
    );
    if (!decision.retry) {
      const gaveUp = exportGaveUp(decision.reason, error);
      await end(data.sessionId, gaveUp, pass, held, code);
      throw gaveUp;
    }
    const delayMs = backoffDelay(tries, options.timing.backoffMs, exportPolicy.maxBackoffMs);
    // Shown as due then, not under way meanwhile (written first: the next try starts after it).
    await store.passStarted(data.sessionId, pass.part, now() + delayMs).catch(() => undefined);
    try {
      await job.updateData(next);
      await job.moveToDelayed(now() + delayMs, token);
    } catch {
      return;
    }
    options.onExportRetry?.(data.sessionId, data.part ?? 1, tries, delayMs, error);
    throw new DelayedError();
  }

  const worker = new SessionWorker(
    where.name,
    async (job, token) => {
      const { sessionId } = job.data;
      const part = job.data.part ?? 1;
      await store.passStarted(sessionId, part);
      const held = await store.read(sessionId, part);
      if (!held) {
        // Its bytes leave the total now rather than when the total's expiry finds them.
        await store.passEnded(sessionId, part, GONE, 'max_age');
        options.onGone?.(sessionId, part);
        return;
      }
      const code = cutOf(held, bounds, now());
      const pass = passOf(part, code, held, bounds);
      const scored = tracesScored(held.traces);
      const delivered = `${scored} ${code ?? ''}`;
      // Recorded and exported as it is now: a pass BullMQ held back for a turn that came while an
      // earlier try ran (`keepLastIfActive`), when that try's export retry (a job put back
      // delayed neither completes nor fails) read the turn and delivered it. Nothing to do again.
      if (held.sent === delivered) {
        await store.passEnded(sessionId, part, held, code);
        return;
      }
      try {
        await options.process(sessionId, held.traces, pass, {
          exportRetry: job.data.exportRetry === scored,
        });
      } catch (error) {
        if (isExportFailure(error)) await retryExport(job, token, error, pass, held, code, scored);
        if (job.attemptsMade + 1 >= (job.opts.attempts ?? 1))
          await end(sessionId, error, pass, held, code);
        throw error;
      }
      await store.passEnded(sessionId, part, held, code, delivered);
    },
    {
      connection: options.connection,
      prefix: where.prefix,
      concurrency: options.concurrency,
      lockDuration: options.timing.lockDurationMs,
      stalledInterval: options.timing.stalledIntervalMs,
    },
  );
  worker.on('error', error => options.onError?.(error));
  // A job BullMQ failed for good with no pass ending its part: stalled more than `maxStalledCount`
  // (its worker died, or was blocked past the lock, each time it held it), or failed before its
  // pass ran (Redis, on its last attempt). Its part is read again for what the record says.
  worker.on('failed', (job, error) => {
    if (!job || ended.has(error)) return;
    const final =
      error.name === 'UnrecoverableError' || job.attemptsMade >= (job.opts.attempts ?? 1);
    if (!final) return;
    const why = stalledJobFailure(job, error, worker.opts.maxStalledCount);
    const done = stalledEnd(job, why)
      .catch((e: unknown) => options.onError?.(e as Error))
      .finally(() => worker.ending.delete(done));
    worker.ending.add(done);
  });

  /**
   * The end of a job BullMQ failed: its part read again for what the record says. A job stalled
   * while it retried the export of the traces the part still holds (`exportRetry`) ends as an
   * export given up on: those results were recorded, and stand.
   */
  async function stalledEnd(job: Job<SessionJobData>, why: Error): Promise<void> {
    const { sessionId } = job.data;
    const part = job.data.part ?? 1;
    const read = await store.read(sessionId, part).catch(() => undefined);
    // Its keys gone (or unread, Redis failing): no turn to name, nor a cut (released as gone).
    const code = read && cutOf(read, bounds, now());
    const pass = passOf(part, code, read ?? GONE, bounds);
    const recorded = read !== undefined && job.data.exportRetry === tracesScored(read.traces);
    const error = recorded
      ? exportGaveUp(
          `${why.message}, while the export of its recorded results was retried`,
          new SpanscoreError(
            'SS_EXPORT_FAILED',
            `${job.data.exportTries ?? 0} export tries failed`,
          ),
        )
      : why;
    await end(sessionId, error, pass, read ?? GONE, read ? code : 'max_age');
  }
  return worker;
}

/** The session queue's BullMQ worker, whose `close` waits for the ends of the jobs BullMQ failed. */
class SessionWorker extends Worker<SessionJobData> {
  /** Ends under way of jobs BullMQ failed (their `failed` event's). */
  readonly ending = new Set<Promise<void>>();

  override async close(force?: boolean): Promise<void> {
    await super.close(force);
    while (this.ending.size) await Promise.all([...this.ending]);
  }
}

/** A part's pass over what was read of it, cut at `code` (see {@link cutOf}). */
function passOf(
  part: number,
  code: StoredSessionCut | undefined,
  held: HeldSessionPart,
  bounds: SessionStoreBounds,
): SessionPass {
  return {
    part,
    cut: code && sessionPartCut(code, bounds),
    // A part opened after one whose keys outlived maxAgeMs names no cut: max_age.
    continues: part > 1 ? continuesAfter(held.continues, 'max_age') : undefined,
    testCaseId: held.testCaseId,
  };
}

/**
 * The bound a part's pass is cut at: the one its turns met (written when they did), else its age
 * at the pass, else (a part of the previous release) its count of turns.
 */
function cutOf(
  held: HeldSessionPart,
  bounds: SessionStoreBounds,
  nowMs: number,
): StoredSessionCut | undefined {
  if (held.cut) return held.cut;
  if (nowMs - held.firstAtMs >= bounds.maxAgeMs) return 'max_age';
  if (held.traces.length >= bounds.maxTraces) return 'max_traces';
  return undefined;
}

/** What a pass read of a part whose keys are gone. */
const GONE: HeldSessionPart = {
  traces: [],
  firstAtMs: 0,
  lastAtMs: 0,
  bytes: 0,
  cut: undefined,
  continues: undefined,
};

/**
 * Which traces a pass scored, and how many spans of each: a SHA-1 of their ids and counts, 40
 * characters whatever the part holds.
 */
function tracesScored(traces: readonly SessionTraceSpans[]): string {
  const hash = createHash('sha1');
  for (const t of traces) hash.update(`${t.traceId}:${t.spans.length};`);
  return hash.digest('hex');
}
