import type { SessionPass } from '../normalize/session-pass.js';
import { sessionRecordKey } from '../results/run-record-key.js';
import { BOUND_KEYS } from './dropped-turn-wording.js';

/**
 * What becomes of a session part whose pass failed after its retries. Not scored again, nothing
 * holding its turns any more: `let_go`, its session was let go (at a bound, to make room, or
 * `maxAgeMs` after its first turn); `alone`: a turn refused at `sessions.maxBytes`, scored
 * alone and never held; `shutdown`: the service was closing. Scored again: `held` (memory), its
 * session is still held with its turns, so its next turn, its let-go or shutdown scores it again;
 * `kept` (bullmq), its job failed its last attempt and its turns stay in Redis, so a later turn
 * scores it again, unless the part was cut (closed: a later turn opens the next part).
 */
export type FailedPassEnd = 'let_go' | 'held' | 'alone' | 'shutdown' | 'kept';

/** What the records and the log say of such a part (see {@link failedSessionPassWording}). */
export interface FailedSessionPassWording {
  /** The detail of the part's run record's reason (after "scoring failed after its retries: "). */
  partDetail: string;
  /** Each of its turns' run records' reason: not scored with the session, and why (not for `held` and `kept`: they are). */
  turnReason: string;
  /** The log line. */
  line: string;
}

/**
 * What is said of a session part whose pass failed after its retries (`message`: the last
 * error's), by what becomes of it (`end`, see {@link FailedPassEnd}): its record ends `failed`
 * with this; where nothing holds its turns to score it again, each of its `turns` says it was not
 * scored with it, and the log line says both.
 */
export function failedSessionPassWording(
  sessionId: string,
  pass: Pick<SessionPass, 'part' | 'cut'>,
  turns: number,
  message: string,
  end: FailedPassEnd,
): FailedSessionPassWording {
  const id = JSON.stringify(sessionId);
  const cut = pass.cut?.code;
  const gone =
    end === 'alone'
      ? 'its turn was scored alone, never held (sessions.maxBytes was full), so this part is not scored again'
      : end === 'shutdown'
        ? 'the service was shutting down, so this part is not scored again'
        : end === 'kept'
          ? cut
            ? `it was cut (${cut}: ${BOUND_KEYS[cut]}), so it takes no turn and is not scored again (a later turn opens part ${pass.part + 1})`
            : 'its turns are kept until its keys expire (sessions.maxAgeMs + sessions.idleMs and a margin after its first turn): only a later turn scores it again'
          : end === 'held'
            ? "the session stays held with its turns: its next turn scores this part again, as do its let-go (at most sessions.maxAgeMs after its first turn) and the service's shutdown"
            : `the session was let go${cut ? ` (cut ${cut}: ${BOUND_KEYS[cut]})` : ''} and its turns are not held, so this part is not scored again`;
  const key = sessionRecordKey(sessionId, pass.part);
  const records = turns === 1 ? "its 1 turn's record" : `its ${turns} turns' records`;
  return {
    partDetail: `${message}; part ${pass.part} of session ${id} (${turns === 1 ? '1 turn' : `${turns} turns`}): ${gone}`,
    turnReason: `a turn of session ${id}, not scored with it: the pass of part ${pass.part} failed after its retries (${message}); ${gone}`,
    line: `spanscore: session ${id} part ${pass.part} failed after its retries: ${message}; ${gone}; its record (${key})${end === 'kept' || end === 'held' ? ' says' : ` and ${records} say`} so`,
  };
}
