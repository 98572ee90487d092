import type { Config } from '../config/config-schema.js';
import type { ResultSink } from '../score/result-sink.js';
import type { ScoringPhase, TraceRun } from '../score/trace-run.js';
import type { ResultsFilter, ResultsPage, Summary, SummaryFilter } from './results-query.js';
import type { FailureSignatures, FailuresFilter } from './summarize-failures.js';
import type { ToolsFilter, ToolsSummary } from './tool-aggregates.js';
import type { TracesFilter, TracesPage } from './trace-list.js';
import type { ExportOutcome, ExportStatus, RunRecord, StoredSession } from './stored-result.js';
import type { RunWrite } from './to-stored-results.js';

/** How much a results store keeps. */
export interface ResultsRetention {
  /** Most recent results kept. */
  maxResults: number;
  /** Run records kept (memory store; the Redis store expires them by age). */
  maxRuns: number;
  /** Anything older is dropped. */
  retentionMs: number;
  /** Keep tool-call arguments and results in run records (`results.storeContent`). */
  storeContent: boolean;
  /** Services, and per service tools, versions and agents, counted apart before `other`. */
  maxServices: number;
  maxToolsPerService: number;
}

/**
 * Where scored results and run records live for the JSON API and the results page: a bounded
 * in-process ring (memory driver) or Redis (BullMQ driver: a capped stream, per-minute summary
 * hashes and run records, all expiring by `retentionMs`, so they survive a restart of `serve`).
 */
export interface ResultsStore {
  readonly name: 'memory' | 'redis';
  /**
   * Writes one pass of the per-trace loop (scored or not) as soon as it is scored: its results
   * and its run record, whose export state starts at `how.exportState` when the pass has results
   * (the export runs after, and reports through {@link ResultsStore.recordExport}). Never
   * rejects: a store that cannot write now keeps the pass for its next write. Called once per
   * pass, so a result is stored once however often its export is retried.
   */
  write(run: TraceRun, how: Pick<RunWrite, 'exportState'>): void;
  /**
   * What an export attempt of the trace's evaluation spans did: `exported`, `pending` (failed,
   * retried) or `failed` (given up). Attempts are counted; the results stay as they are.
   */
  recordExport(traceId: string, outcome: ExportOutcome): Promise<void>;
  /**
   * Corrects a run record already written, in place, with what a step after its write found (a
   * turn its session refused or could not take): `reason` replaces the record's reason, and
   * `diagnostic` is added (at most {@link MAX_AMENDED_DIAGNOSTICS} a record). The record keeps its
   * results, export state, place in the trace list and counts. Nothing when no record of
   * `traceId` is kept. The Redis store writes what it holds first, then reads the record and
   * rewrites it with one script that writes only if the record line is still the one read (a GET
   * and a script call): a pass written meanwhile, by this process or another, is amended in its
   * turn (the script answers with it), never overwritten; after 3 such tries it rejects with
   * `SS_REDIS_FAILED`, the record left as the last pass wrote it.
   */
  amendRun(traceId: string, amendment: RunAmendment): Promise<void>;
  /**
   * Marks a trace failed after its last attempt, with the error. For a session part's record,
   * `session` is the part whose pass failed (its turns, cut, what it continues): kept on the
   * record, in place of the one an earlier pass wrote.
   */
  recordFailure(
    traceId: string,
    phase: ScoringPhase,
    error: unknown,
    session?: StoredSession,
  ): Promise<void>;
  /**
   * Marks a trace expired: it was accepted, but its spans were gone (past the buffer's TTL, or
   * evicted) when a worker took its job. Counted among the traces not scored, as `expired`.
   */
  recordExpired(traceId: string, reason: string): Promise<void>;
  /** Counts over `[fromUnixMs, toUnixMs]`, per scorer, test case or rule, service and minute. */
  summary(fromUnixMs: number, toUnixMs: number, filter?: SummaryFilter): Promise<Summary>;
  /** Tool calls over `[fromUnixMs, toUnixMs]`, per service and tool (see `summarizeTools`). */
  tools(fromUnixMs: number, toUnixMs: number, filter?: ToolsFilter): Promise<ToolsSummary>;
  /**
   * Failed and refused calls over `[fromUnixMs, toUnixMs]` grouped by their normalized error text,
   * per service and tool (see `summarizeFailures`), kept per minute beside the tool counters and
   * for as long.
   */
  failures(
    fromUnixMs: number,
    toUnixMs: number,
    filter?: FailuresFilter,
  ): Promise<FailureSignatures>;
  /** Newest first, after `cursor` (a result id), at most `limit`. */
  results(filter: ResultsFilter, limit: number, cursor?: string): Promise<ResultsPage>;
  /** The trace's run record, if the store has one. */
  run(traceId: string): Promise<RunRecord | undefined>;
  /**
   * Recent traces, newest first, scored or not (with why), each once where it was written last;
   * after `cursor`, at most `limit`. The newest `maxRuns` are kept.
   */
  traces(filter: TracesFilter, limit: number, cursor?: string): Promise<TracesPage>;
  /** Writes what is still buffered (the Redis store's per-minute counters). */
  close(): Promise<void>;
}

/** What {@link ResultsStore.amendRun} corrects in a run record. */
export interface RunAmendment {
  reason?: string;
  diagnostic?: { code: string; message: string };
}

/** Diagnostics a record holds at most for {@link ResultsStore.amendRun} to add one. */
export const MAX_AMENDED_DIAGNOSTICS = 20;

/**
 * A record's fields with `amendment` applied (see {@link ResultsStore.amendRun}): both stores'
 * one rule.
 */
export function amendedRecord<T extends Pick<RunRecord, 'reason' | 'diagnostics'>>(
  fields: T,
  amendment: RunAmendment,
): T {
  const { reason, diagnostic } = amendment;
  return {
    ...fields,
    ...(reason !== undefined && { reason }),
    ...(diagnostic &&
      fields.diagnostics.length < MAX_AMENDED_DIAGNOSTICS && {
        diagnostics: [...fields.diagnostics, diagnostic],
      }),
  };
}

/** The result sink that writes every pass into `store` (see {@link ResultsStore.write}). */
export function resultsStoreSink(
  store: ResultsStore,
  how: Pick<RunWrite, 'exportState'>,
): ResultSink {
  return { name: 'results-store', write: run => store.write(run, how) };
}

/** The reason a failed trace's run record gives. */
export function failureReason(phase: ScoringPhase, error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return `${phase === 'llm' ? 'the judge pass' : 'scoring'} failed after its retries: ${message}`;
}

/**
 * The retention the config asks for. Unset bounds depend on the driver: the memory driver holds
 * its results in a heap of `queue.memoryHeapMb`, so it keeps fewer. These are the only defaults
 * of the config written outside its schema, because a schema default cannot depend on another
 * setting; the schema's descriptions of `results.maxResults` and `results.maxRuns` state them.
 */
export function resultsRetention(config: Readonly<Config>): ResultsRetention {
  const memory = (config.queue.driver ?? 'memory') === 'memory';
  return {
    maxResults: config.results.maxResults ?? (memory ? 10_000 : 50_000),
    maxRuns: config.results.maxRuns ?? 5_000,
    // Whole milliseconds: Redis's PX takes no fraction (1.1 hours is 3,960,000.0000000005 ms).
    retentionMs: Math.ceil(config.results.retentionHours * 3_600_000),
    storeContent: config.results.storeContent,
    maxServices: config.metrics.maxServices,
    maxToolsPerService: config.toolHealth.maxToolsPerService,
  };
}

/** The export state after `outcome`, from the one before (`undefined`: none recorded). */
export function nextExportStatus(
  previous: ExportStatus | null | undefined,
  outcome: ExportOutcome,
  nowUnixMs: number,
): ExportStatus {
  return {
    state: outcome.state,
    attempts: (previous?.attempts ?? 0) + (outcome.state === 'failed' ? 0 : 1),
    lastError: outcome.state === 'exported' ? null : outcome.error,
    updatedAtUnixMs: nowUnixMs,
  };
}

/** The run record of a trace that failed after its retries, keeping what was known of it. */
export function failedRunRecord(
  traceId: string,
  phase: ScoringPhase,
  error: unknown,
  previous: Omit<RunRecord, 'results'> | undefined,
  nowUnixMs: number,
  session?: StoredSession,
): Omit<RunRecord, 'results'> {
  return endedRunRecord(
    traceId,
    'failed',
    failureReason(phase, error),
    previous,
    nowUnixMs,
    session,
  );
}

/** The summary field counting expired traces (among those not scored). */
export const EXPIRED_REASON = 'expired';

/**
 * The run record of a trace that ended without being scored (`failed` or `expired`), with the
 * reason, keeping what was known of it (a session part's `session`: the one given, else the
 * previous record's).
 */
export function endedRunRecord(
  traceId: string,
  state: 'failed' | 'expired',
  reason: string,
  previous: Omit<RunRecord, 'results'> | undefined,
  nowUnixMs: number,
  session: StoredSession | undefined = previous?.session,
): Omit<RunRecord, 'results'> {
  return {
    export: previous?.export ?? null,
    toolCalls: previous?.toolCalls ?? [],
    contentKept: previous?.contentKept ?? true,
    traceId,
    state,
    reason,
    testCaseId: previous?.testCaseId ?? null,
    testCaseIdAttribute: previous?.testCaseIdAttribute ?? null,
    serviceName: previous?.serviceName ?? '',
    serviceVersion: previous?.serviceVersion ?? null,
    deploymentEnvironment: previous?.deploymentEnvironment ?? null,
    diagnostics: previous?.diagnostics ?? [],
    matched: previous?.matched ?? [],
    awaitingJudge: [],
    receivedAtUnixMs: previous?.receivedAtUnixMs ?? null,
    updatedAtUnixMs: nowUnixMs,
    ...(session && { session }),
  };
}
