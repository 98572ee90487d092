import type { SchemaSource } from '../normalize/schema-source.js';
import type { SessionContinues, SessionCutCode } from '../normalize/session-pass.js';
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
  /** The scorer's explanation; the error for a failed result. At most `RESULT_BOUNDS` characters. */
  reason: string;
  /**
   * What the test case expected, in order (see `expectedToolsOf`); `null` when it states none.
   * This and the two lists below keep their first items within `RESULT_BOUNDS`.
   */
  expectedTools: string[] | null;
  /** The tool calls made, in order, repeats kept. */
  toolSequence: string[];
  /** Canonical, deduped tools used. */
  toolsUsed: string[];
  /** The evaluated trace's `service.name`. */
  serviceName: string;
  /** Its `service.version` (a resource attribute), when it has one: what `compare by=version` groups by. */
  serviceVersion: string | null;
  /** Its `deployment.environment.name`, when it has one. */
  deploymentEnvironment: string | null;
  /** `gen_ai.agent.name` of the evaluated trace, when it has one. */
  agentName: string | null;
  /**
   * The agents of the evaluated trace's route, in the order they took control (each once; at
   * most {@link MAX_AGENTS_PER_RESULT}); empty for a trace without agent spans. Results of stores
   * written before agents were read have none.
   */
  agents?: string[];
  /** The agents a failing result blames (see `failingAgents`): who made the wrong call. */
  failingAgents?: string[];
  /** The judge's estimated cost in USD, for LLM scorers with a known price. */
  judgeCostUsd: number | null;
  /**
   * A session's result: the session id (`traceId` is then its last trace's, and the session's
   * run record is `GET /api/v1/sessions/<id>`). Absent for a trace's result.
   */
  sessionId?: string;
  /**
   * A continuation's result: which part of the session (absent for part 1; see `SessionPass`).
   * Its run record is `GET /api/v1/sessions/<id>?part=<n>`.
   */
  sessionPart?: number;
  /** A session's failing result: the first turn that failed, from 1 (`tool_trajectory`). */
  failingTurn?: number;
  /**
   * The fields `RESULT_BOUNDS` cut, each as `<field>: <kept> of <all> items` (a list: its first
   * items kept) or `<field>: <kept> of <all> characters` (a text: its start kept, ending `…`);
   * absent when none was.
   */
  cut?: string[];
}

/**
 * Where a trace's evaluation spans are: `pending` (not written yet: the export has not run, or
 * failed and is retried; `attempts` and `lastError` say how it goes), `exported`, `failed` (still
 * failing at `export.retryMaxAgeMs`, given up) or `disabled` (export is off; see `resolveExport`).
 */
export type ExportState = 'pending' | 'exported' | 'failed' | 'disabled';

/** A run record's export state; its results are in the store whatever the state. */
export interface ExportStatus {
  state: ExportState;
  /** Export attempts made for this trace's latest pass. */
  attempts: number;
  /** The latest failure, while `pending` after a failure, or `failed`. */
  lastError: string | null;
  updatedAtUnixMs: number;
}

/** What one export attempt of a trace's evaluation spans did. */
export type ExportOutcome =
  { state: 'exported' } | { state: 'pending'; error: string } | { state: 'failed'; error: string };

/**
 * One tool call as a run record keeps it, for the trace view. `arguments` and `result` are JSON
 * text (the recorded string when not JSON), cut at {@link MAX_CONTENT_CHARS}, as `error` is; absent when the
 * trace recorded none, or when `results.storeContent` is off (the record then says
 * `contentKept: false`).
 */
export interface StoredToolCall {
  name: string;
  rawName: string;
  source: 'executed' | 'requested';
  status: 'ok' | 'error';
  /** How it ended: `ok`, `error` (ran and failed), `refused` (not run). Absent in older records. */
  outcome?: 'ok' | 'error' | 'refused';
  error: string | null;
  /**
   * Its arguments' problems against the schema offered to the model (`[]`: valid), where
   * `tool_arguments` scored the trace; `null` when they could not be checked.
   */
  argumentProblems?: string[] | null;
  /** Whether the tool was offered to the model (`null`: the trace records no offered tools). */
  offered?: boolean | null;
  /**
   * Where the schema its arguments were checked against came from: its trace, learned from
   * another trace of the service (which, and when), or given in config. Absent when none applied.
   */
  schemaSource?: SchemaSource;
  /** How long its tool span ran, in milliseconds. */
  durationMs?: number;
  /** One of a group of identical calls `tool_loops` found (absent otherwise, and in older records). */
  repeated?: true;
  /** In a session's record: the turn the call was made in, from 0. */
  turn?: number;
  spanId: string;
  /** The extractor that found it (`spanscore inspect`'s conventions). */
  convention: string;
  /** The agent that made the call, in a trace with agent spans. */
  agent?: string;
  arguments?: string;
  result?: string;
}

/**
 * A tool call as a pass writes it for a store that encodes its record compact (`compactRecordLine`,
 * read back by `decodeCalls`): a {@link StoredToolCall} whose `arguments` and `result` may be the
 * recorded object or array itself where their text is exactly its JSON, uncut (`runRecordPatch`
 * with `'values'`). The record's JSON then writes the value once, where the text was written, then
 * escaped into the record's JSON again; it reads back as the same text.
 */
export interface WrittenToolCall extends Omit<StoredToolCall, 'arguments' | 'result'> {
  arguments?: string | object;
  result?: string | object;
}

/** Agents kept per result (a route through more agents keeps its first ones). */
export const MAX_AGENTS_PER_RESULT = 16;

/** Characters of a tool call's arguments or result kept in a run record. */
export const MAX_CONTENT_CHARS = 2000;

/** Tool calls kept in a run record; a trace with more keeps its first ones. */
export const MAX_TOOL_CALLS_PER_RUN = 200;

/**
 * Where a trace is in its life: waiting, scored, matched nothing, failed after retries, or
 * expired (accepted, but its spans were gone before a worker could score it).
 */
export type RunState = 'pending' | 'scored' | 'not_scored' | 'failed' | 'expired';

/** What happened to one trace, kept as long as its results, also when it was not scored. */
export interface RunRecord {
  traceId: string;
  state: RunState;
  /** A human reason: why it was not scored, the error it failed with, or what it waits for. */
  reason: string | null;
  /** The test case id found on the trace, if any. */
  testCaseId: string | null;
  /** The attribute it was read from (`spanscore inspect`'s `testCaseIdAttribute`). */
  testCaseIdAttribute: string | null;
  serviceName: string;
  /** The evaluated trace's `service.version` and `deployment.environment.name`, when known. */
  serviceVersion: string | null;
  deploymentEnvironment: string | null;
  /** What may be wrong with how the trace records its tool calls (see `spanscore inspect`). */
  diagnostics: Array<{ code: string; message: string }>;
  /** What it was scored against: `suite / test case` or `rule:<name>`. */
  matched: string[];
  /** LLM scorers whose judge pass has not reported yet. */
  awaitingJudge: string[];
  /** When the first span was received (pending traces), in Unix milliseconds. */
  receivedAtUnixMs: number | null;
  updatedAtUnixMs: number;
  /** Where its evaluation spans are; `null` while there is nothing to export (not scored). */
  export: ExportStatus | null;
  /**
   * The tool calls scored, in order (at most {@link MAX_TOOL_CALLS_PER_RUN}); empty when not
   * scored, except for a turn of a session test case, which lists its calls while its session
   * waits (checked and counted with the session).
   */
  toolCalls: StoredToolCall[];
  /** False when `results.storeContent` is off: `toolCalls` hold no arguments or results. */
  contentKept: boolean;
  /**
   * The route: the agents in the order they took control, each with the handoff tool that gave
   * it control (`null` for the first, or a return without one). Absent without agent spans.
   */
  agents?: Array<{ agent: string; handoff: string | null }>;
  /** Its results, newest last (capped at {@link MAX_RESULTS_PER_RUN}). */
  results: StoredResult[];
  /**
   * Results of this run the store no longer holds, absent when none: with the Redis store's
   * `results.layout: 2`, a run's results are kept in the results stream only, and the stream is
   * trimmed to `results.maxResults` (and the retention) apart from the run records, which keep
   * their own expiry. `results` then lists those left.
   */
  resultsDropped?: number;
  /**
   * A session's record (its `traceId` is `session:<id>`, `session~<part>:<id>` for a later part):
   * the session id, its part, its traces in turn order, the bound it was scored as it stood at
   * (`cut`, with `cutReason` saying which and what it means), and for a continuation why the part
   * before it ended (`continues`: its turns are not in this one). Records written before parts have
   * no `part`, `cutReason` or `continues`, and `cut` was a sentence.
   */
  session?: StoredSession;
}

/** A session's part as its run record keeps it (see {@link RunRecord.session}). */
export interface StoredSession {
  id: string;
  part: number;
  traceIds: string[];
  cut: SessionCutCode | null;
  cutReason: string | null;
  continues: SessionContinues | null;
}

/** Results kept per run record; a trace scored by more scorers keeps its newest ones. */
export const MAX_RESULTS_PER_RUN = 100;
