import type { TraceRun } from '../score/trace-run.js';
import type { StoredResult } from './stored-result.js';

/** The prefix of a session's run record key: `session:<session id>`. */
export const SESSION_RECORD_PREFIX = 'session:';

/** A session's run record key. */
export function sessionRecordKey(sessionId: string): string {
  return `${SESSION_RECORD_PREFIX}${sessionId}`;
}

/**
 * The key a pass's run record is kept under: its trace id, or, for a session's pass,
 * `session:<id>` (the session's traces keep their own records; a trace id is hex, so the two
 * never meet).
 */
export function runRecordKey(run: Pick<TraceRun, 'traceId' | 'session'>): string {
  return run.session ? sessionRecordKey(run.session.id) : run.traceId;
}

/** The run record a stored result belongs to (see {@link runRecordKey}). */
export function resultRecordKey(result: Pick<StoredResult, 'traceId' | 'sessionId'>): string {
  return result.sessionId !== undefined ? sessionRecordKey(result.sessionId) : result.traceId;
}

/** Whether a run record key is a session's. */
export function isSessionRecordKey(key: string): boolean {
  return key.startsWith(SESSION_RECORD_PREFIX);
}
