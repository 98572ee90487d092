import type { SessionPass } from '../normalize/session-pass.js';

/**
 * What the run record of a turn refused at `sessions.maxBytes` says of it, the same on both
 * drivers: written before its session was asked to hold it, the record said the turn waits to be
 * scored with its session (`sessionTurnReason`); this replaces that reason once the turn was
 * refused. `alone`: the pass it is scored alone as, at once (its part, and its cut, whose reason
 * `sessionRefusedCut` words for the part's own record); `undefined` when no part is known (the
 * bullmq driver, the session having moved on each time the turn was added): not scored with its
 * session at all.
 */
export function refusedTurnReason(
  sessionId: string,
  alone: Pick<SessionPass, 'part' | 'cut'> | undefined,
  maxBytes: number,
): string {
  const id = JSON.stringify(sessionId);
  if (!alone)
    return `a turn of session ${id}, not scored with it: the bytes all sessions hold were at sessions.maxBytes (${maxBytes} bytes) when this turn came, and the session moved on each time the turn was added`;
  return `a turn of session ${id}, scored at once as part ${alone.part} of it: ${alone.cut?.reason ?? 'not held'}`;
}
