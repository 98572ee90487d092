import type { Config } from '../config/config-schema.js';
import type { ResultSink } from '../score/result-sink.js';
import type { ScoringPhase } from '../score/trace-run.js';
import type { ResultsFilter, ResultsPage, Summary, SummaryFilter } from './results-query.js';
import type { RunRecord } from './stored-result.js';

/** How much a results store keeps. */
export interface ResultsRetention {
  /** Most recent results kept. */
  maxResults: number;
  /** Run records kept (memory store; the Redis store expires them by age). */
  maxRuns: number;
  /** Anything older is dropped. */
  retentionMs: number;
}

/**
 * Where scored results and run records live for the JSON API and the results page: a bounded
 * in-process ring (memory driver) or Redis (BullMQ driver: a capped stream, per-minute summary
 * hashes and run records, all expiring by `retentionMs`, so they survive a restart of `serve`).
 */
export interface ResultsStore {
  readonly name: 'memory' | 'redis';
  /** The result sink that writes every trace run (scored or not) into the store. */
  readonly sink: ResultSink;
  /** Marks a trace failed after its last attempt, with the error. */
  recordFailure(traceId: string, phase: ScoringPhase, error: unknown): Promise<void>;
  /** Counts over `[fromUnixMs, toUnixMs]`, per scorer, test case or rule, service and minute. */
  summary(fromUnixMs: number, toUnixMs: number, filter?: SummaryFilter): Promise<Summary>;
  /** Newest first, after `cursor` (a result id), at most `limit`. */
  results(filter: ResultsFilter, limit: number, cursor?: string): Promise<ResultsPage>;
  /** The trace's run record, if the store has one. */
  run(traceId: string): Promise<RunRecord | undefined>;
  /** Writes what is still buffered (the Redis store's per-minute counters). */
  close(): Promise<void>;
}

/** The reason a failed trace's run record gives. */
export function failureReason(phase: ScoringPhase, error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return `${phase === 'llm' ? 'the judge pass' : 'scoring'} failed after its retries: ${message}`;
}

/** The retention the config asks for. */
export function resultsRetention(config: Readonly<Config>): ResultsRetention {
  return {
    maxResults: config.results.maxResults,
    maxRuns: config.results.maxRuns,
    retentionMs: config.results.retentionHours * 3_600_000,
  };
}

/** The run record of a trace that failed after its retries, keeping what was known of it. */
export function failedRunRecord(
  traceId: string,
  phase: ScoringPhase,
  error: unknown,
  previous: Omit<RunRecord, 'results'> | undefined,
  nowUnixMs: number,
): Omit<RunRecord, 'results'> {
  return {
    traceId,
    state: 'failed',
    reason: failureReason(phase, error),
    testCaseId: previous?.testCaseId ?? null,
    serviceName: previous?.serviceName ?? '',
    matched: previous?.matched ?? [],
    awaitingJudge: [],
    receivedAtUnixMs: previous?.receivedAtUnixMs ?? null,
    updatedAtUnixMs: nowUnixMs,
  };
}
