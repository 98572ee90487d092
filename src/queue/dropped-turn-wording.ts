import type { SessionContinues, SessionCutCode } from '../normalize/session-pass.js';

/** The settings a session is let go at, by the cut it was let go with, as the wording names them. */
export const BOUND_KEYS: Record<SessionCutCode, string> = {
  max_traces: 'sessions.maxTraces',
  max_age: 'sessions.maxAgeMs',
  max_bytes: 'sessions.maxSessionBytes or sessions.maxBytes',
  evicted: 'sessions.maxOpen or sessions.maxBytes',
};

/** What the records of a dropped turn and of its session's last part say (see {@link droppedTurnWording}). */
export interface DroppedTurnWording {
  /** The turn's run record's reason: not scored with its session, why, and at which bound. */
  turnReason: string;
  /** The finding added to the turn's record (`session_turn_dropped`). */
  diagnostic: { code: 'session_turn_dropped'; message: string };
  /** The reason of the run record of the session's last part: partial, and at least how many turns came after. */
  sessionReason: string;
}

/**
 * What is said of a turn of a session that came after the session was let go (`last`: its last
 * part, and the cut it was let go with, or `idle` when none cut its pass) and after the driver had nothing left of it to open its
 * next part (`gone`: why, in words), so that the turn is not scored with it; `dropped`: the
 * session's turns dropped so, this one included. The same wording on both drivers: the turn's
 * record must not read as waiting for (or scored with) its session, and the last part's record
 * must not read as the whole conversation.
 */
export function droppedTurnWording(
  sessionId: string,
  last: { part: number; why: SessionContinues },
  dropped: number,
  gone: string,
): DroppedTurnWording {
  const id = JSON.stringify(sessionId);
  const bound =
    last.why === 'idle'
      ? 'after it was scored whole once idle (no cut)'
      : last.why === 'failed'
        ? 'after its pass failed after its retries (its record says why)'
        : `at a bound (${last.why}: ${BOUND_KEYS[last.why]})`;
  // "At least": the memory driver writes it at 1, 2, 4, 8, … turns, not at each.
  const turns = dropped === 1 ? 'at least 1 later turn' : `at least ${dropped} later turns`;
  return {
    turnReason: `a turn of session ${id}, not scored with it: part ${last.part} of the session was let go ${bound}, and ${gone}`,
    diagnostic: {
      code: 'session_turn_dropped',
      message: `not scored with its session ${id}: the session was let go ${bound} so long ago that ${gone}`,
    },
    sessionReason: `partial: ${turns} of session ${id} came after this part was let go ${bound} and ${dropped === 1 ? 'was' : 'were'} not scored with it (${gone}); this part is not the whole conversation`,
  };
}
