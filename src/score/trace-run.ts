import type { Diagnostic } from '../normalize/inspect-trace.js';
import type { NormalizedTrace } from '../normalize/normalize-trace.js';
import type { NotScoredCode } from './match-trace.js';
import type { ScorerOutcome } from './run-scorers.js';
import type { TestCase } from './test-case.js';
import type { SessionContinues, SessionCut } from '../normalize/session-pass.js';

/**
 * Which scorers a pass runs: every one (`all`: offline, and any driver without a judge), all but
 * the LLM-judged ones (`deterministic`: the first pass of a driver with a judge), or only those
 * (`llm`: the judge pass, so a slow or rate-limited judge never holds up deterministic scoring).
 */
export type ScoringPhase = 'all' | 'deterministic' | 'llm';

/** What scoring one trace produced for one test case or production rule. */
export interface TraceResult {
  phase: ScoringPhase;
  /** The trace as this test case's suite (or this rule) reads it: its aliases applied. */
  trace: NormalizedTrace;
  /** `test_case` for a suite's test case, `rule` for a production rule. */
  kind: 'test_case' | 'rule';
  /** The suite's name, or `rule:<name>` for a production rule. */
  suite: string;
  /** The test case id, or `rule:<name>` for a production rule. */
  testCaseId: string;
  /** The test case, for a suite's test case. */
  testCase: TestCase | undefined;
  /** One per scorer run in this phase, in the scorers' order; may be empty (see `deferred`). */
  outcomes: ScorerOutcome[];
  /** In the `deterministic` phase: the LLM scorers left for the `llm` phase. */
  deferred: string[];
  /** When the scorers started and finished, in Unix nanoseconds. */
  startUnixNano: bigint;
  endUnixNano: bigint;
}

/**
 * One trace's pass through the per-trace loop. `scored`: it matched at least one test case or
 * rule, and `results` holds what ran. `not_scored`: it matched none, and `reason` says why (no test
 * case id, an id no suite knows, no rule matched, sampled out). The drivers add `pending` (not
 * ready yet) and `failed` (an error after retries) around this in their run records.
 */
export interface TraceRun {
  traceId: string;
  phase: ScoringPhase;
  state: 'scored' | 'not_scored';
  /** Why the trace was not scored; `undefined` when it was. */
  reason: string | undefined;
  /** The same, as a code for metrics; `undefined` when it was scored. */
  reasonCode: NotScoredCode | undefined;
  /** The test case id found on the trace, if any (also when no suite knows it). */
  testCaseId: string | undefined;
  /** The attribute matching read it from (see `TraceMatch`). */
  testCaseIdAttribute: string | undefined;
  /** The root span's `service.name`, or `''`. */
  serviceName: string;
  /** The root span's `service.version` and `deployment.environment.name`, or `''`. */
  serviceVersion: string;
  deploymentEnvironment: string;
  /** What may be wrong with how the trace records its tool calls (empty when not scored). */
  diagnostics: Diagnostic[];
  results: TraceResult[];
  /**
   * Some target that matched the trace scores `tool_arguments`, in whichever pass: its run record
   * states each call's argument problems, a judge pass's record too (which runs no
   * `tool_arguments` of its own).
   */
  argumentsChecked?: boolean;
  /** The session the trace belongs to (see `findSessionId`), and the attribute it was read from. */
  sessionId?: string | undefined;
  sessionIdAttribute?: string | undefined;
  /**
   * The trace ends its session (`spanscore.session.end`, or its producer's metadata: see
   * `findSessionEnd`): it is scored without waiting.
   */
  endsSession?: boolean;
  /**
   * A turn of a session test case, not scored alone: the trace as its suite reads it, so that its
   * run record lists its calls while the session waits. Its calls are counted by its session's
   * pass, not by this one (`toolCallFacts` reads `results` only).
   */
  turnTrace?: NormalizedTrace | undefined;
  /**
   * Its session is a production conversation tool health scores across its turns
   * (`toolHealth.sessions`, in the `sessionSampleRate` sample): the trace may open the session.
   */
  conversationHealth?: boolean;
  /**
   * A session's pass (see `scoreSession`): the session scored as one, its traces in turn order.
   * `traceId` is then the last turn's, whose root the evaluation spans go on.
   */
  session?: SessionRun | undefined;
}

/** What a session's pass scored. */
export interface SessionRun {
  id: string;
  /** Which part of the session (1, or a later one for a continuation: see `SessionPass`). */
  part: number;
  /** Its traces, in turn order. */
  traceIds: string[];
  /** The bound it was scored as it stood at, if one was. */
  cut?: SessionCut | undefined;
  /** For a continuation: why the part before it ended (its turns are not in this one). */
  continues?: SessionContinues | undefined;
}
