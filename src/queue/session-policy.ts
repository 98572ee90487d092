import type { Config } from '../config/config-schema.js';

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
