import type { SpanDigest } from '../ingest/span-digest.js';
import type { SpanSink } from '../ingest/span-sink.js';
import type { Diagnostic } from '../normalize/inspect-trace.js';
import type { ExportBacklog } from '../emit/export-backlog.js';
import type { ResultsStore } from '../results/results-store.js';
import type { SchemaRegistry } from '../score/schemas/schema-registry.js';
import type { JudgeCache } from '../score/llm/judge-cache.js';
import type { SpendLedger } from '../score/llm/spend-ledger.js';
import type { ScoringPhase, TraceRun } from '../score/trace-run.js';
import type { SessionTraceSpans } from '../score/score-session.js';
import type { TraceProgress } from './trace-readiness.js';
import type { OpenSession, SessionPass } from './session-policy.js';

/** How a driver asks for one pass of a trace. */
export interface ScoreOptions {
  /**
   * Scorer errors that reject the call (true) instead of becoming `failed` results (the judge
   * pass retries them); an `Error` returned is the `failed` result's error instead of the one thrown.
   */
  propagate?: (error: unknown) => boolean | Error;
  /**
   * This pass retries an export that failed: its results were already recorded, so the run goes
   * to the delivering sinks only (evaluation spans, then hooks). A driver sets it on every try
   * after one that failed with `SS_EXPORT_FAILED` (see `isExportFailure`).
   */
  exportRetry?: boolean;
  /** What the driver knows of the trace that reading it cannot tell (e.g. it was truncated): added to its diagnostics. */
  notes?: readonly Diagnostic[];
  /**
   * With the `deterministic` phase: no judge pass follows this one (a rescore past
   * `MAX_JUDGE_PASSES_PER_TRACE`), so its LLM scorers are `skipped` with this reason instead of
   * deferred.
   */
  judgeSkipped?: string;
}

/**
 * What a driver's workers call for each ready trace: the per-trace loop (`scoreTrace`) with this
 * process's scoring plan and result sinks (see `createScoringRuntime`).
 */
export interface TraceScorer {
  score(
    traceId: string,
    spans: readonly SpanDigest[],
    phase: ScoringPhase,
    options?: ScoreOptions,
  ): Promise<TraceRun>;
  /**
   * {@link TraceScorer.score} in two steps: scoring, with the recording sinks (results store,
   * metrics, files) written, then `deliver` for the delivering ones (evaluation spans, then
   * hooks), which a driver may run outside its scoring slot. `score` is both, in turn.
   */
  scoreThenDeliver(
    traceId: string,
    spans: readonly SpanDigest[],
    phase: ScoringPhase,
    options?: ScoreOptions,
  ): Promise<{ run: TraceRun; deliver: () => Promise<void> }>;
  /** Some test case or rule has an LLM scorer: the driver then runs a separate judge pass. */
  readonly usesJudge: boolean;
  /**
   * Some suite has a session test case (and sessions are on): the driver then gathers the traces
   * of each session (a pass's `run.sessionId`) and hands it to {@link TraceScorer.scoreSession}
   * once complete (see `SessionPolicy`).
   */
  readonly assemblesSessions: boolean;
  /**
   * Scores a session's traces as one (`scoreSession`, every scorer), with the recording sinks,
   * then delivers it (evaluation spans, hooks); an export failure rejects, for the driver to retry.
   * `pass` says which part of the session it is (its record key: `session:<id>` for part 1,
   * `session~<n>:<id>` after), the bound it was cut at, and what a continuation lacks.
   * `exportRetry`: an earlier try of this pass, over these same traces, was recorded and failed to
   * export; this one goes to the delivering sinks only, so its results are recorded once however
   * often the export is retried (as {@link ScoreOptions.exportRetry}).
   */
  scoreSession(
    sessionId: string,
    traces: readonly SessionTraceSpans[],
    pass: SessionPass,
    options?: { exportRetry?: boolean },
  ): Promise<TraceRun>;
}

/** Where the LLM judge keeps its state in this driver, and who limits and retries its calls. */
export interface JudgeState {
  /**
   * Who rate-limits judge calls: `process`, this process; `queue`, the driver's judge queue,
   * across every worker. Either way the driver's judge pass retries failed calls (its
   * `judge.attempts` and backoff, a 429 after its Retry-After), so the `openai` client does not.
   */
  limits: 'process' | 'queue';
  /** Shared by every worker of the driver; absent: an in-memory cache. */
  cache?: JudgeCache;
  /** Shared by every worker of the driver; absent: an in-memory ledger. */
  ledger?: SpendLedger;
}

/** What a driver tells the service about the work it runs. */
export interface DriverEvents {
  log(line: string): void;
  /** Spans arrived after their trace was scored (counted; with `rescoreLateSpans`, rescored). */
  onLateSpans(traceId: string, count: number): void;
  /**
   * A pass of a trace failed for good: after its last attempt, or at once when not retryable. The
   * service takes it out of `exportBacklog` and records it in `results`.
   */
  onTraceFailed(traceId: string, phase: ScoringPhase, error: unknown): void;
  /**
   * A trace the receiver accepted can no longer be scored: its spans are gone. Also called for a
   * trace scored long enough ago that its scored mark is gone: the service checks its run record.
   */
  onTraceExpired(traceId: string, reason: string): void;
  /** The receiver refused a request because the backlog could not keep it (503/429). */
  onAdmissionRefused(reason: string, message: string): void;
  /** The memory driver let a held session go to make room (`sessions.maxOpen`, `sessions.maxBytes`). */
  onSessionEvicted?(sessionId: string): void;
  /**
   * A turn that would open a session was scored alone, its session not held: `max_bytes`, the
   * sessions held filled `sessions.maxBytes` (`spanscore_sessions_refused_total`).
   */
  onSessionRefused?(sessionId: string, traceId: string, reason: 'max_bytes'): void;
  /**
   * A turn of a session was not scored with it: `forgotten`, its session was let go so long ago
   * that no record of it is left; `failed`, the pass of its part failed after its retries when
   * nothing held the part any more (memory driver) (`spanscore_session_turns_dropped_total`).
   */
  onSessionTurnDropped?(sessionId: string, traceId: string, reason: 'forgotten' | 'failed'): void;
  /**
   * A part of a session ended failed, once each time it does: its pass failed after its retries,
   * its export was given up on, or (bullmq) BullMQ failed its job, its worker stalled past
   * BullMQ's limit (`spanscore_session_failures_total`). The driver records and says it.
   */
  onSessionFailed?(sessionId: string, part: number): void;
}

/**
 * Everything from an accepted span batch to a scored trace: buffering, readiness, jobs, the
 * deterministic pass and the judge pass (when a scorer needs the judge), and retries
 * with one classifier (`classifyFailure`). `memory` runs it in this process; `bullmq` on Redis,
 * where receivers and workers may be separate processes on any hosts. The service only wires a
 * driver to the receiver and to the scoring runtime; it has no driver-specific branches.
 */
export interface QueueDriver {
  readonly name: 'memory' | 'bullmq';
  /** Where the receiver hands accepted spans; `undefined` in a process without the receiver role. */
  readonly sink: SpanSink | undefined;
  /** Where the judge's cache and daily spend live in this driver. */
  readonly judgeState: JudgeState;
  /**
   * The sessions this process holds open, newest first, at most `limit`
   * (`GET /api/v1/sessions?state=open`): their turns so far and when each will be scored. Absent in a
   * driver that cannot tell.
   */
  openSessions?(limit: number): Promise<OpenSession[]>;
  /** Starts the workers, which hand every ready trace to `scorer`. Called once, before traffic. */
  startWorkers(scorer: TraceScorer): void;
  /** Traces whose evaluation-span export failed and waits for a retry (for `/metrics`). */
  readonly exportBacklog: ExportBacklog;
  /** Where results and run records are kept for the JSON API and the results page. */
  readonly results: ResultsStore;
  /**
   * Where the schemas services offered in recent traffic are kept, beside the results: every
   * process of the driver reads the same (see `toolHealth.learnSchemas`).
   */
  readonly schemas: SchemaRegistry;
  /**
   * A trace that is buffered and not scored yet, or being scored (`scoring`): when its first and
   * latest spans arrived and whether its root ended. `undefined` when the driver holds nothing of
   * it.
   */
  pendingTrace(traceId: string): Promise<(TraceProgress & { scoring?: boolean }) | undefined>;
  /**
   * The spans of a trace that is buffered and not scored yet, or being scored (for the inspect
   * view of the JSON API); `undefined` once it was scored (its spans are not kept, unless for late
   * spans) or when the driver holds nothing of it.
   */
  pendingSpans(traceId: string): Promise<SpanDigest[] | undefined>;
  /** True when the driver's store answers (`/readyz`). */
  ready(): Promise<boolean>;
  /**
   * The sessions held open, waiting for more turns or for their pass (those whose pass is under
   * way first, then soonest scored first), at most `limit`. Absent: the driver holds no sessions.
   */
  openSessions?(limit: number): Promise<OpenSession[]>;
  /** Work by state, for `/metrics`: trace jobs, and judge jobs under `judge_<state>`. */
  jobCounts(): Promise<Record<string, number>>;
  /**
   * Stops taking spans, lets workers finish or hand back their traces within `deadlineMs`, and
   * closes the driver's connections. Resolves with how many traces were left unfinished.
   */
  close(deadlineMs: number): Promise<{ unfinished: number }>;
}
