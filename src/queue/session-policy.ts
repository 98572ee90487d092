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
}

/**
 * Why a session's pass was made at a bound, not because the conversation went quiet or ended:
 * `max_traces` (`sessions.maxTraces`), `max_age` (`sessions.maxAgeMs` after its first trace),
 * `max_bytes` (`sessions.maxSessionBytes`), `evicted` (let go to make room: the memory driver's
 * `sessions.maxOpen`, or `sessions.maxBytes` in all). Shared by the result, the run record, the
 * page and the `cut` label of `spanscore_sessions_scored_total`.
 */
export type SessionCutCode = 'max_traces' | 'max_age' | 'max_bytes' | 'evicted';

/** A bound a session's pass was cut at: its code, and a sentence saying which and what it means. */
export interface SessionCut {
  code: SessionCutCode;
  reason: string;
}

/**
 * Which pass of a session is scored. A session cut at a bound or let go keeps its pass as part 1;
 * a turn that comes after opens part 2 (a continuation), and so on: a part never replaces an
 * earlier part's result, and a continuation says what it lacks (`continues`: the earlier part's
 * cut, whose turns it does not hold).
 */
export interface SessionPass {
  /** 1 for a session's first part; n \> 1 for its continuations. */
  part: number;
  /** The bound this pass was cut at, when one was. */
  cut?: SessionCut | undefined;
  /** For a continuation (`part` \> 1): why the part before it ended, whose turns this one lacks. */
  continues?: SessionCutCode | undefined;
}

/** One trace of a session, as a driver hands it to its session assembler. */
export interface SessionTurnInput {
  sessionId: string;
  traceId: string;
  /** The trace ends its session: score it now. */
  ends: boolean;
  /**
   * The trace's own test case id names a session test case. Only such a trace opens a session;
   * an untagged trace joins a session a tagged one opened, and is otherwise not held, so traffic
   * with session ids but no session test case costs no storage.
   */
  tagged: boolean;
}

/** The session policy the config asks for (its schema holds the defaults). */
export function sessionPolicy(config: Readonly<Config>): SessionPolicy {
  return {
    idleMs: config.sessions.idleMs,
    maxTraces: config.sessions.maxTraces,
    maxAgeMs: config.sessions.maxAgeMs,
  };
}

/** Why a session is scored as it stands, when a bound cut it; `undefined` when none did. */
export function sessionCut(
  policy: SessionPolicy,
  traces: number,
  firstAtMs: number,
  nowMs: number,
): string | undefined {
  if (traces >= policy.maxTraces)
    return `cut at ${policy.maxTraces} traces (sessions.maxTraces): scored as it stood`;
  if (nowMs - firstAtMs >= policy.maxAgeMs)
    return `cut ${Math.round(policy.maxAgeMs / 60_000)} minutes after its first trace (sessions.maxAgeMs): scored as it stood`;
  return undefined;
}

/** A trace's pass as its session's turn; `undefined` for a trace without a session id. */
export function sessionTurnOf(
  run: Pick<TraceRun, 'sessionId' | 'endsSession' | 'reasonCode'>,
  traceId: string,
): SessionTurnInput | undefined {
  if (run.sessionId === undefined) return undefined;
  return {
    sessionId: run.sessionId,
    traceId,
    ends: run.endsSession === true,
    tagged: run.reasonCode === 'session_test_case',
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

/** What the log says of a trace not added because its session was cut at `maxTraces`. */
export function droppedFromSession(
  traceId: string,
  sessionId: string,
  policy: SessionPolicy,
): string {
  return `spanscore: trace ${traceId} not added to session ${sessionId}: it was cut at sessions.maxTraces (${policy.maxTraces})`;
}

/**
 * A session held open, waiting for more turns or to be scored, as `/api/v1/sessions?state=open`
 * and the Traces view show it: its turns so far (trace ids, in the order they came), when its
 * first and latest came, when it will be scored unless another turn comes (Unix ms; `undefined`
 * while a pass is under way), and the bytes it holds.
 */
export interface OpenSession {
  sessionId: string;
  part: number;
  traceIds: string[];
  firstAtMs: number;
  lastAtMs: number;
  scoreAtMs: number | undefined;
  bytes: number;
}
