import type { SessionEndSource } from '../normalize/find-session-end.js';

/** Where a turn may mark the end of its conversation, as a turn's reason names them. */
const END_MARKERS =
  'spanscore.session.end, or sessionEnd / session_end in its framework’s metadata';

/**
 * What the run record of a turn of a session test case says while the session waits (`reason`:
 * `a turn of session test case …: scored with its session`, from `matchTrace`): when the session
 * will be scored. Live (`idleMs` given, `sessions.idleMs`): at once when this turn marks the end
 * (and where it says so), else after `idleMs` without a turn, or at once when a later turn marks
 * the end. Offline (`idleMs` undefined), the session is scored once every trace is read, and
 * `reason` is returned as it is.
 */
export function sessionTurnReason(
  reason: string,
  idleMs: number | undefined,
  end: SessionEndSource | undefined,
): string {
  if (idleMs === undefined) return reason;
  if (end) return `${reason}: at once, this turn marks the end (${end.attribute})`;
  return `${reason}: after ${durationText(idleMs)} idle, or at once when a turn marks the end (${END_MARKERS})`;
}

/** A duration as a person reads it: whole minutes, whole seconds, else milliseconds. */
function durationText(ms: number): string {
  const plural = (n: number, unit: string) => `${n} ${unit}${n === 1 ? '' : 's'}`;
  if (ms >= 60_000 && ms % 60_000 === 0) return plural(ms / 60_000, 'minute');
  if (ms >= 1000 && ms % 1000 === 0) return plural(ms / 1000, 'second');
  return `${ms} ms`;
}
