import { createHash } from 'node:crypto';
import { Worker } from 'bullmq';
import type { RedisClient } from '../redis/redis-connection.js';
import {
  RedisSessionStore,
  type HeldSessionPart,
  type SessionStoreBounds,
  type StoredSessionCut,
} from '../redis/redis-session-store.js';
import type { SessionTraceSpans } from '../score/score-session.js';
import { isExportFailure } from './export-retry.js';
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
   * A part's pass failed its job's last attempt (BullMQ then fails the job; the part's turns stay
   * in Redis until a later turn schedules it again or its keys expire): the caller makes its end
   * visible. Resolves once done; it should not reject (the job's own error is what BullMQ keeps).
   */
  onLastAttemptFailed?: (
    sessionId: string,
    error: unknown,
    failed: { pass: SessionPass; traceIds: string[] },
  ) => Promise<void>;
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
 * job is taken over by another worker once stalled.
 */
export function createSessionWorker(options: SessionWorkerOptions): Worker<SessionJobData> {
  const now = options.now ?? Date.now;
  const where = sessionQueueLocation(options.prefix, options.connection.isCluster);
  const bounds = sessionStoreBounds(options.policy, options.bytes, options.timing);
  const store = new RedisSessionStore(options.redis, options.prefix, bounds, now);
  const worker = new Worker<SessionJobData>(
    where.name,
    async job => {
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
      const pass: SessionPass = {
        part,
        cut: code && sessionPartCut(code, bounds),
        // A part opened after one whose keys outlived maxAgeMs names no cut: max_age.
        continues: part > 1 ? continuesAfter(held.continues, 'max_age') : undefined,
        testCaseId: held.testCaseId,
      };
      const scored = tracesScored(held.traces);
      try {
        await options.process(sessionId, held.traces, pass, {
          exportRetry: job.data.exportRetry === scored,
        });
      } catch (error) {
        // Its results were recorded: a later try over the same traces exports only. (Not kept,
        // Redis failing too: that try records them again, and the job's own error stands.)
        if (isExportFailure(error) && job.data.exportRetry !== scored)
          await job.updateData({ ...job.data, exportRetry: scored }).catch(() => undefined);
        if (job.attemptsMade + 1 >= (job.opts.attempts ?? 1))
          await options.onLastAttemptFailed?.(sessionId, error, {
            pass,
            traceIds: held.traces.map(t => t.traceId),
          });
        throw error;
      }
      await store.passEnded(sessionId, part, held, code);
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
  return worker;
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
