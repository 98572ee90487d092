import type { StoredResult } from './stored-result.js';

/** Filters of `GET /api/v1/results`; every field is optional and they combine with AND. */
export interface ResultsFilter {
  scorer?: string;
  label?: 'pass' | 'fail';
  status?: StoredResult['status'];
  /** A test case id, or `rule:<name>`. */
  testCase?: string;
  service?: string;
  /** The evaluated trace's `service.version`. */
  serviceVersion?: string;
  traceId?: string;
  /** Inclusive bounds on `timeUnixMs`. */
  fromUnixMs?: number;
  toUnixMs?: number;
}

/** What a summary may be narrowed to. */
export type SummaryFilter = Pick<ResultsFilter, 'scorer' | 'testCase' | 'service'>;

/** One page of results, newest first; `nextCursor` continues after the last one. */
export interface ResultsPage {
  results: StoredResult[];
  nextCursor: string | null;
}

/** Counts for one group (a scorer, a test case or rule) over a summary window. */
export interface SummaryGroup {
  count: number;
  pass: number;
  fail: number;
  skipped: number;
  failed: number;
  /** pass / (pass + fail), in 0..1; `null` with no labelled result. */
  passRate: number | null;
  /** Mean over scored results; `null` with none. */
  meanScore: number | null;
  judgeCostUsd: number;
}

/** `GET /api/v1/summary`: totals per scorer, per test case or rule, and per minute. */
export interface Summary {
  fromUnixMs: number;
  toUnixMs: number;
  total: SummaryGroup;
  byScorer: Array<SummaryGroup & { scorer: string }>;
  byTarget: Array<
    SummaryGroup & {
      targetKind: 'test_case' | 'rule';
      suite: string;
      testCaseId: string;
      scorer: string;
    }
  >;
  byService: Array<SummaryGroup & { serviceName: string }>;
  /**
   * Per agent: the results of the traces whose route went through it, and how many failures it is
   * blamed for (`blamed`: it made the wrong call, or handed off the wrong way). Empty without
   * multi-agent traces.
   */
  byAgent: Array<SummaryGroup & { agent: string; blamed: number }>;
  /** Per minute and scorer, oldest first, for the pass-rate chart. */
  timeline: Array<{ minuteUnixMs: number; scorer: string; pass: number; fail: number }>;
  /** Traces that matched nothing, by reason, in the window. */
  notScored: Array<{ reason: string; count: number }>;
  /** Traces that failed after retries in the window. */
  failedTraces: number;
  /** Sessions (conversations) scored as one in the window, each once however often rescored. */
  sessions: number;
  /**
   * Every scorer, test case or rule, service and agent with results in the window, whatever the
   * filter: what a page offers to filter by, from the same request.
   */
  options: { scorers: string[]; testCases: string[]; services: string[]; agents: string[] };
}

/** The fields of a result that {@link matchesFilter} reads. */
export type FilteredFields = Pick<
  StoredResult,
  | 'scorer'
  | 'label'
  | 'status'
  | 'testCaseId'
  | 'serviceName'
  | 'serviceVersion'
  | 'traceId'
  | 'timeUnixMs'
>;

/** True when `r` passes every filter of `f`. */
export function matchesFilter(r: FilteredFields, f: ResultsFilter): boolean {
  return (
    (f.scorer === undefined || r.scorer === f.scorer) &&
    (f.label === undefined || r.label === f.label) &&
    (f.status === undefined || r.status === f.status) &&
    (f.testCase === undefined || r.testCaseId === f.testCase) &&
    (f.service === undefined || r.serviceName === f.service) &&
    (f.serviceVersion === undefined || r.serviceVersion === f.serviceVersion) &&
    (f.traceId === undefined || r.traceId === f.traceId) &&
    (f.fromUnixMs === undefined || r.timeUnixMs >= f.fromUnixMs) &&
    (f.toUnixMs === undefined || r.timeUnixMs <= f.toUnixMs)
  );
}
