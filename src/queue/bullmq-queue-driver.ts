import type { RedisClient, RedisRole } from '../redis/redis-connection.js';
import type { Config } from '../config/config-schema.js';
import { createRedisResultsStore } from '../redis/redis-results-store.js';
import { resultsRetention } from '../results/results-store.js';
import {
  bufferTtls,
  createBullmqTraceSink,
  type BullmqTraceOptions,
  type BullmqTraceSink,
  type BullmqTraceSinkOptions,
} from './bullmq-trace-assembler.js';
import { createJudgeQueue, type JudgeQueue } from './judge-queue.js';
import { createJudgeWorker } from './judge.processor.js';
import { createSessionWorker } from './session-worker.js';
import {
  createSessionQueue,
  type SessionByteBounds,
  type SessionJobTiming,
  type SessionQueue,
  type SessionTurnAdded,
  sessionStoreBounds,
} from './session-queue.js';
import { RedisSessionStore } from '../redis/redis-session-store.js';
import { endFailedSessionPass } from './end-failed-session-pass.js';
import { sessionPolicy } from './session-policy.js';
import { refusedTurnReason } from './refused-turn-reason.js';
import { deliveryFollowUps } from './delivery-follow-ups.js';
import type { DriverEvents, QueueDriver, TraceScorer } from './queue-driver.js';
import { classifyFailure } from './classify-failure.js';
import { redisFailure } from '../redis/redis-failure.js';
import type { SpanDigest } from '../ingest/span-digest.js';
import {
  createRedisConnection,
  describeRedisError,
  evictionPolicyWarning,
  redisTargetOf,
  whenReady,
} from '../redis/redis-connection.js';
import { createRedisExportBacklog } from '../redis/redis-export-backlog.js';
import { exportBacklogMaxAgeMs, exportRetryPolicy } from './export-retry-policy.js';
import { readPendingTrace, RedisSpanBuffer } from '../redis/redis-span-buffer.js';
import { createRedisJudgeCache } from '../redis/redis-judge-cache.js';
import { createRedisSchemaRegistry } from '../redis/redis-schema-registry.js';
import { createRedisSpendLedger } from '../redis/redis-spend-ledger.js';
import { createScoreTraceWorker, type ScoreTraceWorkerOptions } from './score-trace.processor.js';
import { startWorkerHeartbeat } from '../redis/worker-heartbeat.js';
import { rateLimitedLog } from '../log/rate-limited-log.js';
import { jobsAtOnce } from './trace-job.js';
import { rescoreJudgeSkipped } from './rescore-judge-passes.js';
import { traceJobFailed } from './trace-job-failed.js';

const JOB_STATES = ['waiting', 'delayed', 'active', 'completed', 'failed'] as const;

/**
 * The `bullmq` driver on Redis: the receiver role appends spans to Redis and queues one job per
 * request for its traces (`createBullmqTraceSink`); the worker role runs the trace jobs
 * (`score-trace` queue, the deterministic pass) and, when a scorer needs the judge, queues the
 * judge pass on its own rate-limited queue (`judge`), so a slow or rate-limited judge never holds
 * up deterministic scoring. BullMQ does the retries, as `classifyFailure` says; the judge's cache
 * and daily spend live in Redis, shared by every worker. Receivers and workers may be separate
 * processes on any hosts. Redis is one server or a Redis Cluster (`redisTargetOf`); the trace
 * queue is `queue.shards` BullMQ queues, each with its own worker in every worker process.
 */
export function createBullmqQueueDriver(
  config: Readonly<Config>,
  role: { receiver: boolean; workers: boolean },
  events: DriverEvents,
): QueueDriver {
  const connections: RedisClient[] = [];
  const target = redisTargetOf(config.queue);
  const connect = (kind: RedisRole): RedisClient => {
    const connection = createRedisConnection(target, kind);
    connection.on('error', (error: Error) =>
      events.log(`spanscore: redis: ${describeRedisError(error)}`),
    );
    connections.push(connection);
    return connection;
  };
  const commands = connect('commands');
  void evictionPolicyWarning(commands).then(w => w && events.log(`spanscore: warning: ${w}`));
  const exportBacklog = createRedisExportBacklog(commands, config.queue.prefix, {
    maxAgeMs: exportBacklogMaxAgeMs(config),
  });
  const results = createRedisResultsStore(commands, config.queue.prefix, resultsRetention(config), {
    onError: e => events.log(`spanscore: results store: ${e.message}`),
    layout: config.results.layout,
  });
  const shared = bullmqTraceOptions(config);
  // For the inspect view of buffered traces: plain reads, which may move a trace buffered in the
  // previous layout into this one (with the TTLs the workers use).
  const peekBuffer = new RedisSpanBuffer(commands, config.queue.prefix, bufferTtls(shared));
  // Open sessions are listed from any process (a receiver-only one too): a read of the due set.
  const sessionReader = new RedisSessionStore(
    commands,
    config.queue.prefix,
    sessionStoreBounds(sessionPolicy(config), sessionByteBounds(config), sessionJobTiming(config)),
  );
  const closers: Array<() => Promise<unknown>> = [];
  let traceSink: BullmqTraceSink | undefined;
  let judgeQueue: JudgeQueue | undefined;
  let sessionQueue: SessionQueue | undefined;
  // Sessions refused at sessions.maxBytes: said at most once a minute.
  const refusedLog = rateLimitedLog(line => events.log(line));
  /**
   * A turn refused at sessions.maxBytes: counted and said, and its pass alone (the part it would
   * have opened, as the memory driver scores it), to run with the trace's delivery. A failure
   * worth retrying (an export) rejects, to retry the trace job, whose retry is refused as the
   * same part again and scores it again, replacing its record; any other is said in the log, as
   * a session job's is, not taken for a failure of the trace, whose own results are stored.
   */
  const refused = (
    scorer: TraceScorer,
    sessionId: string,
    traceId: string,
    spans: readonly SpanDigest[],
    alone: SessionTurnAdded['alone'],
  ): (() => Promise<void>) | undefined => {
    // Refused before (a retried trace job): counted and said then.
    if (!alone?.again) events.onSessionRefused?.(sessionId, traceId, 'max_bytes');
    const id = JSON.stringify(sessionId);
    const full = `the bytes all sessions hold are at sessions.maxBytes (${config.sessions.maxBytes})`;
    if (!alone) {
      refusedLog(
        'session-refused-moved',
        () =>
          `spanscore: session ${id} not held and trace ${traceId} not scored with it: ${full}, and the session moved on each time the turn was added (spanscore_sessions_refused_total)`,
      );
      return undefined;
    }
    const { pass, marked } = alone;
    if (!alone.again)
      refusedLog(marked ? 'session-refused' : 'session-refused-unmarked', () =>
        marked
          ? `spanscore: session ${id} not held (trace ${traceId} scored alone, as part ${pass.part}): ${full}; sessions already held go on (spanscore_sessions_refused_total)`
          : `spanscore: session ${id} not held (trace ${traceId} scored alone, as part ${pass.part}): ${full}, and the marks of refused parts at their bound (1/16 of it): part ${pass.part} is not marked closed, so a later turn may open it again and its pass replace this one (spanscore_sessions_refused_total)`,
      );
    return async () => {
      try {
        await scorer.scoreSession(sessionId, [{ traceId, spans }], pass);
      } catch (error) {
        if (classifyFailure(error).action !== 'fail') throw error;
        events.log(
          `spanscore: session ${id} (part ${pass.part}, trace ${traceId} scored alone) failed: ${(error as Error).message}`,
        );
      }
    };
  };
  if (role.receiver) {
    traceSink = createBullmqTraceSink({
      ...shared,
      redis: commands,
      // The receiver answers while a sender waits: 503 after a few seconds of a failover.
      queueConnection: connect('producer'),
      ...bullmqSinkLimits(config),
      onRefused: refusal => events.onAdmissionRefused(refusal.reason, refusal.message),
      onError: e => events.log(`spanscore: queue: ${e.message}`),
      onLateSpans: (traceId, count) => events.onLateSpans(traceId, count),
    });
    closers.push(() => traceSink!.close());
  }
  const onJobFailed = (phase: 'deterministic' | 'llm') => traceJobFailed(events, phase);

  return {
    name: 'bullmq',
    sink: traceSink,
    results,
    schemas: createRedisSchemaRegistry(commands, config.queue.prefix),
    exportBacklog,
    pendingTrace: traceId => readPendingTrace(commands, config.queue.prefix, traceId),
    async pendingSpans(traceId) {
      // A plain read: no claim, so the worker that holds the trace is not disturbed.
      const read = await peekBuffer.read(traceId);
      return read.progress && !read.progress.scored && read.spans.length ? read.spans : undefined;
    },
    judgeState: {
      limits: 'queue',
      cache: createRedisJudgeCache(commands, config.queue.prefix, config.judge.cacheTtlSeconds),
      ledger: createRedisSpendLedger(commands, config.queue.prefix),
    },
    startWorkers(scorer) {
      if (!role.workers) throw new Error('unreachable: workers started in a receiver-only process');
      judgeQueue = scorer.usesJudge
        ? createJudgeQueue({
            connection: connect('bullmq'),
            prefix: config.queue.prefix,
            attempts: config.judge.attempts,
            backoffMs: config.judge.backoffMs,
            exportRetry: exportRetryPolicy(config),
          })
        : undefined;
      sessionQueue = scorer.assemblesSessions
        ? createSessionQueue({
            redis: commands,
            connection: connect('bullmq'),
            prefix: config.queue.prefix,
            policy: sessionPolicy(config),
            bytes: sessionByteBounds(config),
            timing: sessionJobTiming(config),
            recordsKeptMs: resultsRetention(config).retentionMs,
          })
        : undefined;
      const sessions = sessionQueue;
      // One BullMQ worker per queue shard, the process's concurrency (traces scored at once)
      // split between them (trace ids spread evenly over the shards) and taken in jobs of a
      // request's traces, on one blocking-capable connection each.
      const perShard = jobsAtOnce(Math.ceil(config.worker.concurrency / config.queue.shards));
      // Receivers refuse traffic once no worker has been seen for a while (admission).
      const stopHeartbeat = startWorkerHeartbeat(commands, config.queue.prefix);
      closers.unshift(() => Promise.resolve(stopHeartbeat()));
      for (let shard = 0; shard < config.queue.shards; shard++) {
        const worker = createScoreTraceWorker({
          ...shared,
          shard,
          redis: commands,
          workerConnection: connect('bullmq'),
          process: async (traceId, spans, { exportRetry, notes, rescore }) => {
            // A rescore past the trace's judge passes (late batches): its deterministic scorers only.
            const judgeSkipped = judgeQueue ? rescoreJudgeSkipped(rescore) : undefined;
            const { run, deliver } = await scorer.scoreThenDeliver(
              traceId,
              spans,
              judgeQueue ? 'deterministic' : 'all',
              judgeSkipped === undefined
                ? { exportRetry, notes }
                : { exportRetry, notes, judgeSkipped },
            );
            // The trace joins its session now, in its scoring slot, so that its session is
            // scored whether or not the trace's own evaluation spans reach the backend, and
            // without waiting behind deliveries that retry one that is down (a retried job adds
            // the turn again, in its place). A failure here retries the trace job. Delivered
            // outside the scoring slot (see createScoreTraceWorker); the judge pass is queued
            // once it is (a try that failed to export throws before). The spans are kept for
            // it only while the export runs.
            const next = deliveryFollowUps(run, traceId, spans, {
              judges: judgeQueue !== undefined,
              assemblesSessions: sessions !== undefined,
            });
            const added =
              sessions && next?.turn ? await sessions.add(next.turn, next.spans) : undefined;
            let alone: (() => Promise<void>) | undefined;
            if (added?.outcome === 'refused' && next?.turn) {
              const { sessionId } = next.turn;
              alone = refused(scorer, sessionId, traceId, next.spans, added.alone);
              // Its record, written before its session refused it, said it waits to be scored
              // with it (a retried job writes the record again, and corrects it again).
              await results
                .amendRun(traceId, {
                  reason: refusedTurnReason(sessionId, added.alone?.pass, config.sessions.maxBytes),
                })
                .catch((error: unknown) => {
                  throw redisFailure(`correcting the record of trace ${traceId}`, error);
                });
            }
            return async () => {
              // The trace's delivery and its pass alone (if refused) each run whatever the other
              // does; a failure of either retries the trace job. Most traces have no such pass:
              // their delivery is awaited alone, with nothing allocated for the pair.
              if (alone) {
                const sent = await Promise.allSettled([deliver(), alone()]);
                const failed = sent.find(s => s.status === 'rejected');
                if (failed) throw failed.reason;
              } else await deliver();
              if (judgeQueue && next?.judge)
                await judgeQueue.enqueue(traceId, next.spans).catch((error: unknown) => {
                  throw redisFailure(`queueing the judge pass of trace ${traceId}`, error);
                });
            };
          },
          ...bullmqWorkerLimits(config),
          concurrency: perShard,
          onLateSpans: (traceId, count) => events.onLateSpans(traceId, count),
          onError: e => events.log(`spanscore: worker: ${e.message}`),
          onExpired: (traceId, reason) => events.onTraceExpired(traceId, reason),
        });
        worker.on('failed', onJobFailed('deterministic'));
        // BullMQ's close waits for active jobs; jobs still delayed stay in Redis for any worker.
        closers.unshift(() => worker.close());
      }
      if (sessions) {
        const sessionWorker = createSessionWorker({
          redis: commands,
          connection: connect('bullmq'),
          prefix: config.queue.prefix,
          policy: sessionPolicy(config),
          bytes: sessionByteBounds(config),
          timing: sessionJobTiming(config),
          concurrency: Math.max(1, Math.ceil(config.worker.concurrency / 4)),
          process: (sessionId, traces, pass, options) =>
            scorer.scoreSession(sessionId, traces, pass, options),
          // Its turns stay in Redis for a later turn: `kept`.
          onLastAttemptFailed: (sessionId, error, failed) =>
            endFailedSessionPass(config, results, exportBacklog, events, sessionId, error, {
              ...failed,
              end: 'kept',
            }),
          onExportRetry: (sessionId, part, tries, delayMs, error) =>
            events.log(
              `spanscore: session ${JSON.stringify(sessionId)} (part ${part}) export try ${tries} failed, tried again in ${delayMs} ms (until it has failed for export.retryMaxAgeMs): ${(error as Error).message}`,
            ),
          onGone: (sessionId, part) =>
            events.log(
              `spanscore: session ${sessionId} (part ${part}) had no traces left when its job ran: its pass came later than its keys live (sessions.maxAgeMs + idleMs + a margin)`,
            ),
          onError: e => events.log(`spanscore: session worker: ${e.message}`),
        });
        sessionWorker.on('failed', (job, error) =>
          events.log(
            `spanscore: session ${job?.data.sessionId ?? '?'} (part ${job?.data.part ?? 1}) attempt ${job?.attemptsMade ?? '?'} failed: ${error.message}`,
          ),
        );
        closers.unshift(() => sessionWorker.close());
        closers.push(() => sessions.close());
      }
      if (judgeQueue) {
        const judgeWorker = createJudgeWorker({
          connection: connect('bullmq'),
          prefix: config.queue.prefix,
          process: (traceId, spans, options) => scorer.score(traceId, spans, 'llm', options),
          rateLimit: config.judge.rateLimit,
          concurrency: config.judge.concurrency,
          attempts: config.judge.attempts,
          backoffMs: config.judge.backoffMs,
          exportRetry: exportRetryPolicy(config),
          lockDurationMs: config.worker.lockDurationMs,
          stalledIntervalMs: config.worker.stalledIntervalMs,
          onError: e => events.log(`spanscore: judge worker: ${e.message}`),
        });
        judgeWorker.on('failed', onJobFailed('llm'));
        closers.unshift(() => judgeWorker.close());
        const queue = judgeQueue;
        closers.push(() => queue.close());
      }
    },
    openSessions: limit => sessionReader.openSessions(limit),
    async ready() {
      try {
        await whenReady(commands);
        return (await commands.ping()) === 'PONG';
      } catch {
        return false;
      }
    },
    async jobCounts() {
      const counts: Record<string, number> = {};
      for (const queue of traceSink?.queues ?? [])
        for (const [state, n] of Object.entries(await queue.getJobCounts(...JOB_STATES)))
          counts[state] = (counts[state] ?? 0) + n;
      if (judgeQueue)
        for (const [state, n] of Object.entries(await judgeQueue.queue.getJobCounts(...JOB_STATES)))
          counts[`judge_${state}`] = n;
      if (sessionQueue)
        for (const [state, n] of Object.entries(
          await sessionQueue.queue.getJobCounts(...JOB_STATES),
        ))
          counts[`session_${state}`] = n;
      return counts;
    },
    async close() {
      for (const close of closers) await close();
      await results.close();
      await Promise.all(connections.map(r => r.quit().catch(() => r.disconnect())));
      return { unfinished: 0 };
    },
  };
}

/**
 * What the BullMQ sink and worker must agree on, as the config resolves it (its schema holds the
 * defaults).
 */
export function bullmqTraceOptions(config: Readonly<Config>): BullmqTraceOptions {
  return {
    prefix: config.queue.prefix,
    policy: {
      settleMs: config.assembly.settleMs,
      maxWaitMs: config.assembly.maxWaitMs,
      logsWaitMs: config.assembly.logsWaitMs,
    },
    rescoreLateSpans: config.assembly.rescoreLateSpans,
    exportRetry: exportRetryPolicy(config),
    shards: config.queue.shards,
    unscoredTtlMs: config.assembly.unscoredTtlMs,
    maxSpansPerTrace: config.assembly.maxSpansPerTrace,
    attempts: config.worker.attempts,
    backoffMs: config.worker.backoffMs,
  };
}

/** The receiver's admission limits, as the config resolves them. */
export function bullmqSinkLimits(
  config: Readonly<Config>,
): Pick<BullmqTraceSinkOptions, 'maxQueuedTraces' | 'admission'> {
  return { maxQueuedTraces: config.assembly.maxQueuedTraces, admission: config.admission };
}

/** A trace worker's concurrency and BullMQ lock timing, as the config resolves them. */
export function bullmqWorkerLimits(
  config: Readonly<Config>,
): Pick<ScoreTraceWorkerOptions, 'concurrency' | 'lockDurationMs' | 'stalledIntervalMs'> {
  return {
    concurrency: config.worker.concurrency,
    lockDurationMs: config.worker.lockDurationMs,
    stalledIntervalMs: config.worker.stalledIntervalMs,
  };
}

/** The byte bounds of sessions, as the config resolves them. */
export function sessionByteBounds(config: Readonly<Config>): SessionByteBounds {
  return {
    maxSessionBytes: config.sessions.maxSessionBytes,
    maxBytes: config.sessions.maxBytes,
  };
}

/** How session jobs are retried (exports by age) and taken over when stalled: as trace jobs are. */
export function sessionJobTiming(config: Readonly<Config>): SessionJobTiming {
  return {
    attempts: config.worker.attempts,
    backoffMs: config.worker.backoffMs,
    lockDurationMs: config.worker.lockDurationMs,
    stalledIntervalMs: config.worker.stalledIntervalMs,
    exportRetry: exportRetryPolicy(config),
  };
}
