import type { TraceRun } from '../score/trace-run.js';
import type { StoredResult } from './stored-result.js';

/** The prefix of a session's part 1 run record key: `session:<session id>`. */
export const SESSION_RECORD_PREFIX = 'session:';

/** The prefix of a later part's key: `session~<part>:<session id>`. */
const SESSION_PART_PREFIX = 'session~';

/** A later part's key prefix, as a pattern (a part is a positive integer without leading zeros). */
const SESSION_PART_KEY = /^session~([1-9]\d{0,5}):/;

/**
 * A session's run record key: `session:<id>` for its first part, `session~<part>:<id>` for a
 * continuation (see `SessionPass`). A session id is any text and a trace id is hex, so the three
 * never meet: a key that starts `session:` is part 1 whatever the id holds (an id `~2:x` gives
 * `session:~2:x`), and only a continuation's starts `session~`.
 */
export function sessionRecordKey(sessionId: string, part = 1): string {
  return part > 1
    ? `${SESSION_PART_PREFIX}${part}:${sessionId}`
    : `${SESSION_RECORD_PREFIX}${sessionId}`;
}

/**
 * The key a pass's run record is kept under: its trace id, or, for a session's pass, its part's
 * session key (the session's traces keep their own records), so that a part never replaces
 * another part's record and results.
 */
export function runRecordKey(run: Pick<TraceRun, 'traceId' | 'session'>): string {
  return run.session ? sessionRecordKey(run.session.id, run.session.part) : run.traceId;
}

/** The run record a stored result belongs to (see {@link runRecordKey}). */
export function resultRecordKey(
  result: Pick<StoredResult, 'traceId' | 'sessionId' | 'sessionPart'>,
): string {
  return result.sessionId !== undefined
    ? sessionRecordKey(result.sessionId, result.sessionPart)
    : result.traceId;
}

/** Whether a run record key is a session's (of any part). */
export function isSessionRecordKey(key: string): boolean {
  return key.startsWith(SESSION_RECORD_PREFIX) || SESSION_PART_KEY.test(key);
}

/** The session id and part a session's run record key names; `undefined` for any other key. */
export function parseSessionRecordKey(
  key: string,
): { sessionId: string; part: number } | undefined {
  if (key.startsWith(SESSION_RECORD_PREFIX))
    return { sessionId: key.slice(SESSION_RECORD_PREFIX.length), part: 1 };
  const match = SESSION_PART_KEY.exec(key);
  return match ? { sessionId: key.slice(match[0].length), part: Number(match[1]) } : undefined;
}
