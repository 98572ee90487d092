import PQueue from 'p-queue';
import type { Config } from '../config/config-schema.js';
import type { SpanDigest } from '../ingest/span-digest.js';
import { SpanscoreError } from '../errors/spanscore-error.js';
import { createMemoryExportBacklog } from '../emit/export-backlog.js';
import {
  createMemoryResultsStore,
  type MemoryResultsStore,
} from '../results/memory-results-store.js';
import { createMemorySchemaRegistry } from '../score/schemas/memory-schema-registry.js';
import { resultsRetention } from '../results/results-store.js';
import {
  createMemoryTraceAssembler,
  type MemoryTraceAssemblerOptions,
} from './memory-trace-assembler.js';
import { judgeErrorsToRetry } from './classify-failure.js';
import { isExportGiveUp } from './export-retry.js';
import type { DriverEvents, QueueDriver, TraceScorer } from './queue-driver.js';
import { exportRetryPolicy } from './export-retry-policy.js';
import { retryWithBackoff } from './retry-with-backoff.js';
import { settledWithin } from './settled-within.js';
import {
  createMemorySessionAssembler,
  type MemorySessionAssembler,
} from './memory-session-assembler.js';
import type { ExportBacklog } from '../emit/export-backlog.js';
import { endFailedSessionPass } from './end-failed-session-pass.js';
import { sessionPolicy } from './session-policy.js';
import { refusedTurnReason } from './refused-turn-reason.js';
import { droppedTurnWording } from './dropped-turn-wording.js';
import { sessionRecordKey } from '../results/run-record-key.js';
import { deliveryFollowUps } from './delivery-follow-ups.js';
import { rescoreJudgeSkipped } from './rescore-judge-passes.js';

/**
 * The embedded `memory` driver: receiver, assembly and workers in this process, bounded, nothing
 * surviving a restart. Traces are assembled by `createMemoryTraceAssembler`; a ready trace's
 * deterministic pass runs on its queue (`worker.concurrency`, `worker.attempts`); when a scorer
 * needs the judge, the judge pass runs after it on a queue of its own (`judge.concurrency`,
 * `judge.attempts`), so deterministic results are written first and a slow judge never holds a
 * trace slot, as with the bullmq driver. A judge 429 waits out its Retry-After without using an
 * attempt, up to `MAX_RATE_LIMITED_WAITS` a pass; on the last attempt (and for a 429 past those)
 * judge errors become `failed` results.
 */
export function createMemoryQueueDriver(
  config: Readonly<Config>,
  events: DriverEvents,
): QueueDriver {
  events.log(
    'spanscore: memory driver: traces are buffered in this process and nothing survives a restart (set REDIS_URL for the bullmq driver)',
  );
  let scorer: TraceScorer | undefined;
  // Sessions, when a suite has a session test case (created with the workers).
  let sessions: MemorySessionAssembler | undefined;
  const results = createMemoryResultsStore(resultsRetention(config));
  const exportBacklog = createMemoryExportBacklog();
  const judgeJobs = new PQueue({ concurrency: config.judge.concurrency });
  // Judge passes not finished yet, retries included, for close().
  const judgePasses = new Set<Promise<void>>();
  const assembler = createMemoryTraceAssembler({
    process: async (traceId, spans, { notes, rescore }) => {
      const withScorer = scorer;
      if (!withScorer)
        throw new Error('unreachable: the memory driver scores once workers started');
      // A rescore past the trace's judge passes (late batches): its deterministic scorers only.
      const judgeSkipped = withScorer.usesJudge ? rescoreJudgeSkipped(rescore) : undefined;
      const { run, deliver } = await withScorer.scoreThenDeliver(
        traceId,
        spans,
        withScorer.usesJudge ? 'deterministic' : 'all',
        judgeSkipped === undefined ? { notes } : { notes, judgeSkipped },
      );
      // The trace joins its session now, in its scoring slot: its session is scored whether or
      // not the trace's own evaluation spans reach the backend, and without waiting behind
      // deliveries that retry a backend that is down (adding a turn again, on a retry,
      // replaces it). Delivered outside the scoring slot; the judge pass is queued once it is:
      // a try that failed to export throws before. The spans are kept for the judge only while
      // the export runs (up to MAX_WAITING_DELIVERIES traces wait on a slow backend).
      const next = deliveryFollowUps(run, traceId, spans, {
        judges: true,
        assemblesSessions: sessions !== undefined,
      });
      if (sessions && next?.turn) sessions.add(next.turn, next.spans);
      return async () => {
        await deliver();
        if (next?.judge) queueJudgePass(withScorer, traceId, next.spans);
      };
    },
    ...memoryAssemblyLimits(config),
    exportRetry: exportRetryPolicy(config),
    onLateSpans: (traceId, count) => events.onLateSpans(traceId, count),
    onFailed: (traceId, error) => events.onTraceFailed(traceId, 'deterministic', error),
  });

  function queueJudgePass(
    withScorer: TraceScorer,
    traceId: string,
    spans: readonly SpanDigest[],
  ): void {
    // Each pass holds its trace's spans until it ends, outside the assembly buffer's bounds: a
    // judge slower than the traffic would hold every trace sent meanwhile.
    if (judgePasses.size >= config.judge.maxQueuedTraces) {
      events.onTraceFailed(
        traceId,
        'llm',
        new SpanscoreError(
          'SS_JUDGE_UNAVAILABLE',
          `not judged: ${judgePasses.size} traces already wait for the judge or are being judged (judge.maxQueuedTraces)`,
        ),
      );
      return;
    }
    const done = (async () => {
      try {
        // Each attempt takes a judge slot; the backoff between attempts does not.
        await retryWithBackoff(
          (final, rateLimitedWaits, exportRetry) =>
            withScorer.score(traceId, spans, 'llm', {
              propagate: judgeErrorsToRetry(final, rateLimitedWaits),
              exportRetry,
            }),
          {
            attempts: config.judge.attempts,
            backoffMs: config.judge.backoffMs,
            exportRetry: exportRetryPolicy(config),
            slot: run => judgeJobs.add(run, { throwOnTimeout: true }),
          },
        );
      } catch (error) {
        events.onTraceFailed(traceId, 'llm', error);
      }
    })();
    judgePasses.add(done);
    void done.finally(() => judgePasses.delete(done));
  }

  return {
    name: 'memory',
    sink: assembler,
    results,
    schemas: createMemorySchemaRegistry(),
    exportBacklog,
    pendingTrace: traceId => Promise.resolve(assembler.pending(traceId)),
    pendingSpans: traceId => Promise.resolve(assembler.pendingSpans(traceId)),
    judgeState: { limits: 'process' },
    openSessions: limit => Promise.resolve(sessions?.open(limit) ?? []),
    startWorkers(s) {
      scorer = s;
      if (s.assemblesSessions) sessions = memorySessions(config, events, s, results, exportBacklog);
    },
    ready: () => Promise.resolve(true),
    jobCounts() {
      const stats = assembler.stats();
      return Promise.resolve({
        buffered: stats.bufferedTraces,
        // Requests held at the door while the buffer is full (assembly.admissionWaitMs).
        requests_waiting: stats.waitingRequests,
        completed: stats.scored,
        failed: stats.failed,
        judge_waiting: judgeJobs.size,
        judge_active: judgeJobs.pending,
        ...(sessions && {
          sessions_held: sessions.stats().held,
          sessions_waiting: sessions.stats().waiting,
          sessions_bytes: sessions.stats().bytes,
        }),
      });
    },
    async close(deadlineMs) {
      const started = Date.now();
      const { unfinished } = await assembler.close(deadlineMs);
      const judged = await settledWithin(
        Promise.all([...judgePasses]),
        deadlineMs - (Date.now() - started),
      );
      // Sessions waiting are scored now, with every trace scored by then.
      const waiting = sessions?.stats().waiting ?? 0;
      const sessioned = await settledWithin(sessions?.close(), deadlineMs - (Date.now() - started));
      return {
        unfinished: unfinished + (judged ? 0 : judgePasses.size) + (sessioned ? 0 : waiting),
      };
    },
  };
}

/** The memory assembler's limits and retries, as the config resolves them (its schema holds the defaults). */
export function memoryAssemblyLimits(
  config: Readonly<Config>,
): Pick<
  MemoryTraceAssemblerOptions,
  | 'policy'
  | 'concurrency'
  | 'maxAttempts'
  | 'backoffMs'
  | 'maxBufferedSpans'
  | 'maxBufferedBytes'
  | 'admissionWaitMs'
  | 'maxSpansPerTrace'
  | 'maxServiceShare'
  | 'rescoreLateSpans'
> {
  return {
    policy: {
      settleMs: config.assembly.settleMs,
      maxWaitMs: config.assembly.maxWaitMs,
      logsWaitMs: config.assembly.logsWaitMs,
    },
    concurrency: config.worker.concurrency,
    maxAttempts: config.worker.attempts,
    backoffMs: config.worker.backoffMs,
    maxBufferedSpans: config.assembly.maxBufferedSpans,
    maxBufferedBytes: config.assembly.maxBufferedBytes,
    admissionWaitMs: config.assembly.admissionWaitMs,
    maxSpansPerTrace: config.assembly.maxSpansPerTrace,
    maxServiceShare: config.assembly.maxServiceShare,
    rescoreLateSpans: config.assembly.rescoreLateSpans,
  };
}

/** Why the memory driver had nothing left of a session to open its next part (the let-go record's bounds). */
const LET_GO_FORGOTTEN =
  'no record of it was left to open its next part (the record of sessions let go keeps at most 10 × sessions.maxOpen sessions and 1/16 of sessions.maxBytes)';

/** How often the log says that sessions were refused or turns dropped (the counters say how many). */
const SESSION_LOG_EVERY_MS = 60_000;

/**
 * The memory driver's session assembler, as the config bounds it: `sessions.maxOpen` sessions and
 * `sessions.maxBytes` bytes held; the record of sessions let go at most 10 × `maxOpen` entries and
 * 1/16 of `maxBytes` (64 KiB at least). Refused sessions and dropped turns are counted, and said
 * in the log at most once a minute each, with how many since.
 */
function memorySessions(
  config: Readonly<Config>,
  events: DriverEvents,
  s: TraceScorer,
  results: MemoryResultsStore,
  exportBacklog: ExportBacklog,
): MemorySessionAssembler {
  const quiet = (what: string) => {
    let lastAtMs = -Infinity;
    let since = 0;
    return (line: string) => {
      since++;
      const t = Date.now();
      if (t - lastAtMs < SESSION_LOG_EVERY_MS) return;
      events.log(`${line}${since > 1 ? ` (${since} ${what} since the last such line)` : ''}`);
      lastAtMs = t;
      since = 0;
    };
  };
  const refusedLine = quiet('sessions refused');
  const droppedLine = quiet('turns dropped');
  return createMemorySessionAssembler({
    policy: sessionPolicy(config),
    maxOpen: config.sessions.maxOpen,
    maxBytes: config.sessions.maxBytes,
    letGo: {
      maxEntries: 10 * config.sessions.maxOpen,
      maxBytes: Math.max(65_536, Math.floor(config.sessions.maxBytes / 16)),
    },
    score: (sessionId, traces, pass) =>
      retryWithBackoff(
        (_final, _waits, exportRetry) => s.scoreSession(sessionId, traces, pass, { exportRetry }),
        {
          attempts: config.worker.attempts,
          backoffMs: config.worker.backoffMs,
          exportRetry: exportRetryPolicy(config),
        },
      ).then(() => undefined),
    onFailed: (sessionId, error, failed) =>
      void endFailedSessionPass(config, results, exportBacklog, events, sessionId, error, failed),
    resultsStored: isExportGiveUp,
    keptPart: sessionId => results.lastSessionPart(sessionId),
    onEvicted: sessionId => events.onSessionEvicted?.(sessionId),
    onRefused: (sessionId, traceId, pass) => {
      events.onSessionRefused?.(sessionId, traceId, 'max_bytes');
      // Its record, written before its session refused it, said it waits to be scored with it.
      void results.amendRun(traceId, {
        reason: refusedTurnReason(sessionId, pass, config.sessions.maxBytes),
      });
      refusedLine(
        `spanscore: session ${JSON.stringify(sessionId)} not held: sessions.maxBytes (${config.sessions.maxBytes}) is full of sessions waiting to be scored; its turn ${traceId} was scored alone (spanscore_sessions_refused_total)`,
      );
    },
    onDropped: (sessionId, traceId, last) => {
      events.onSessionTurnDropped?.(sessionId, traceId, 'forgotten');
      const said = droppedTurnWording(sessionId, last, last.dropped, LET_GO_FORGOTTEN);
      void results.amendRun(traceId, {
        reason: said.turnReason,
        diagnostic: said.diagnostic,
      });
      // Its last part's record said it was the conversation as it stood: it is not. Rewritten
      // at the 1st, 2nd, 4th, 8th, … dropped turn, not at each: a stream of tiny turns naming a
      // forgotten session would otherwise re-encode that (large) record once a turn.
      if ((last.dropped & (last.dropped - 1)) === 0)
        void results.amendRun(sessionRecordKey(sessionId, last.part), {
          reason: said.sessionReason,
        });
      droppedLine(
        `spanscore: trace ${traceId} of session ${JSON.stringify(sessionId)} not scored with it: the session was let go and no record of it is left (spanscore_session_turns_dropped_total)`,
      );
    },
  });
}
