import type { ScorerKind } from '../score/scorer.js';
import type { ScoringPhase } from '../score/trace-run.js';

/**
 * One scorer's result on one trace, as the results store keeps it and the JSON API returns it:
 * flat JSON, no bigints, everything a results page or report shows without the trace.
 */
export interface StoredResult {
  /** The store's id of this result: a cursor for `GET /api/v1/results`. */
  id: string;
  /** When the scorer finished, in Unix milliseconds. */
  timeUnixMs: number;
  traceId: string;
  /** `test_case` for a suite's test case, `rule` for a production rule. */
  targetKind: 'test_case' | 'rule';
  /** The suite's name, or `rule:<name>`. */
  suite: string;
  /** The test case id, or `rule:<name>`. */
  testCaseId: string;
  scorer: string;
  scorerKind: ScorerKind;
  /** A hash of the scorer's configuration (see `scorerVersion`). */
  scorerVersion: string;
  phase: ScoringPhase;
  status: 'scored' | 'skipped' | 'failed';
  score: number | null;
  label: 'pass' | 'fail' | null;
  /** The scorer's explanation; the error for a failed result. */
  reason: string;
  /** What the test case expected, in order (see `expectedToolsOf`); `null` when it states none. */
  expectedTools: string[] | null;
  /** The tool calls made, in order, repeats kept. */
  toolSequence: string[];
  /** Canonical, deduped tools used. */
  toolsUsed: string[];
  /** The evaluated trace's `service.name`. */
  serviceName: string;
  /** `gen_ai.agent.name` of the evaluated trace, when it has one. */
  agentName: string | null;
  /** The judge's estimated cost in USD, for LLM scorers with a known price. */
  judgeCostUsd: number | null;
}

/** Where a trace is in its life: waiting, scored, matched nothing, or failed after retries. */
export type RunState = 'pending' | 'scored' | 'not_scored' | 'failed';

/** What happened to one trace, kept as long as its results, also when it was not scored. */
export interface RunRecord {
  traceId: string;
  state: RunState;
  /** A human reason: why it was not scored, the error it failed with, or what it waits for. */
  reason: string | null;
  /** The test case id found on the trace, if any. */
  testCaseId: string | null;
  serviceName: string;
  /** What it was scored against: `suite / test case` or `rule:<name>`. */
  matched: string[];
  /** LLM scorers whose judge pass has not reported yet. */
  awaitingJudge: string[];
  /** When the first span was received (pending traces), in Unix milliseconds. */
  receivedAtUnixMs: number | null;
  updatedAtUnixMs: number;
  /** Its results, newest last (capped at {@link MAX_RESULTS_PER_RUN}). */
  results: StoredResult[];
}

/** Results kept per run record; a trace scored by more scorers keeps its newest ones. */
export const MAX_RESULTS_PER_RUN = 100;
