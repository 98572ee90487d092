import type { Config } from '../config/config-schema.js';
import type { TraceRun } from '../score/trace-run.js';

/**
 * When a session (the traces of one conversation) is scored, and how far it may grow: it is
 * scored `idleMs` after its latest trace, or at once when a trace ends it
 * (`spanscore.session.end`); past `maxTraces` traces, or `maxAgeMs` after its first, it is scored
 * as it stands and its result says it was cut. A trace that comes after it was scored scores it
 * again (results replaced), until `maxAgeMs`.
 */
export interface SessionPolicy {
  idleMs: number;
  maxTraces: number;
  maxAgeMs: number;
  /**
   * Bytes one session may hold (`sessions.maxSessionBytes`, counted by `sessionTurnBytes`): a
   * turn that would take it past this is not added; the session is cut (`max_bytes`) and the turn
   * opens its next part. Absent: not bounded in bytes (a driver that does not count them).
   */
  maxSessionBytes?: number | undefined;
}

// The cut and pass types live beside the normalized session that carries them (below queue/ and
// score/, which both read them); they are this contract's, re-exported here.
export type {
  OpenSession,
  SessionContinues,
  SessionCut,
  SessionCutCode,
  SessionPass,
} from '../normalize/session-pass.js';
import type { SessionContinues, SessionCut, SessionCutCode } from '../normalize/session-pass.js';
import { sessionPartCut } from './session-part-cut.js';

/** One trace of a session, as a driver hands it to its session assembler. */
export interface SessionTurnInput {
  sessionId: string;
  traceId: string;
  /** The trace ends its session: score it now. */
  ends: boolean;
  /**
   * The trace may open its session: its own test case id names a session test case, or its
   * session is a production conversation tool health scores (`toolHealth.sessions`, sampled by
   * session id: every turn alike). Only such a trace opens a session; another joins a session one
   * opened, and is otherwise not held, so traffic with session ids but neither costs no storage.
   */
  tagged: boolean;
  /** A tagged trace's test case id (see `SessionPass.testCaseId`). */
  testCaseId?: string | undefined;
}

/** The session policy the config asks for (its schema holds the defaults). */
export function sessionPolicy(config: Readonly<Config>): SessionPolicy {
  return {
    idleMs: config.sessions.idleMs,
    maxTraces: config.sessions.maxTraces,
    maxAgeMs: config.sessions.maxAgeMs,
    maxSessionBytes: config.sessions.maxSessionBytes,
  };
}

/**
 * Why a session is scored as it stands, when a bound cut it; `undefined` when none did: at
 * `maxTraces` traces (`max_traces`), at `maxSessionBytes` bytes when the driver counts them
 * (`max_bytes`), `maxAgeMs` after its first trace (`max_age`), checked in that order.
 */
export function sessionCut(
  policy: SessionPolicy,
  traces: number,
  firstAtMs: number,
  nowMs: number,
  bytes?: number,
): SessionCut | undefined {
  if (traces >= policy.maxTraces) return sessionPartCut('max_traces', policy);
  if (
    bytes !== undefined &&
    policy.maxSessionBytes !== undefined &&
    bytes >= policy.maxSessionBytes
  )
    return sessionPartCut('max_bytes', policy);
  if (nowMs - firstAtMs >= policy.maxAgeMs) return sessionPartCut('max_age', policy);
  return undefined;
}

/**
 * What the next part of a session continues, from the part before it: the cut of its last pass;
 * without one, `max_age` when it was held until `maxAgeMs` after its first turn (`letGo`: the
 * memory driver's expiry; the bullmq driver's part whose keys outlived that), else `idle`: it
 * was scored whole once the conversation went quiet or a turn ended it, and let go since (the
 * memory driver's `sessions.maxOpen` or `sessions.maxBytes`, or no record is left of why). Both
 * drivers' one rule: a continuation never names a bound that did not end the part before it.
 */
export function continuesAfter(
  cut: SessionContinues | undefined,
  letGo?: SessionCutCode,
): SessionContinues {
  return cut ?? (letGo === 'max_age' ? 'max_age' : 'idle');
}

/** A trace's pass as its session's turn; `undefined` for a trace without a session id. */
export function sessionTurnOf(
  run: Pick<
    TraceRun,
    'sessionId' | 'endsSession' | 'reasonCode' | 'conversationHealth' | 'testCaseId'
  >,
  traceId: string,
): SessionTurnInput | undefined {
  if (run.sessionId === undefined) return undefined;
  return {
    sessionId: run.sessionId,
    traceId,
    ends: run.endsSession === true,
    tagged: run.reasonCode === 'session_test_case' || run.conversationHealth === true,
    ...(run.reasonCode === 'session_test_case' && { testCaseId: run.testCaseId }),
  };
}

/**
 * How long after a trace its session is scored: at once when the trace ends it or a bound cut
 * it, else `idleMs`, within what is left of its `maxAgeMs`.
 */
export function sessionDelayMs(
  policy: SessionPolicy,
  turn: Pick<SessionTurnInput, 'ends'>,
  cut: boolean,
  ageMs: number,
): number {
  return turn.ends || cut ? 0 : Math.max(0, Math.min(policy.idleMs, policy.maxAgeMs - ageMs));
}
