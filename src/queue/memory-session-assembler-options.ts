import type { SessionTraceSpans } from '../score/score-session.js';
import type { FailedPassEnd } from './failed-session-pass-wording.js';
import type {
  SessionContinues,
  SessionCutCode,
  SessionPass,
  SessionPolicy,
} from './session-policy.js';

/** Options of `createMemorySessionAssembler`. */
export interface MemorySessionAssemblerOptions {
  policy: SessionPolicy;
  /** Sessions held at most; when full, the oldest is let go (scored first, cut `evicted`, if it waits). */
  maxOpen: number;
  /**
   * Bytes all held sessions may hold together (`sessionTurnBytes` of their turns). A turn of a
   * held session is always added (the oldest others are let go to make room); a turn that would
   * open a session is refused when, with the sessions already scored let go, it does not fit:
   * its session is scored alone, not held.
   */
  maxBytes: number;
  /**
   * The record of sessions let go (id → its last part and why), so that a later turn opens the
   * next part: at most `maxEntries` entries and `maxBytes` bytes (an entry costs its id's length
   * and 64), the oldest dropped first. A dropped entry's id is remembered as a 32-bit hash with its
   * last part and why (as many as `maxEntries`), so that an untagged turn of it is counted as
   * dropped (`onDropped`, with how many were), not taken for traffic of no session, and a tagged one opens its next
   * part, which says what it continues, never a part 1 that would replace the first part's results.
   */
  letGo: { maxEntries: number; maxBytes: number };
  /**
   * Scores a pass of a session as it stands (`pass`: its part, its cut, what it continues);
   * retries are its own. A rejection is reported through `onFailed`.
   */
  score(sessionId: string, traces: SessionTraceSpans[], pass: SessionPass): Promise<void>;
  /**
   * A pass that failed after its retries (`score` rejected), and what becomes of the part (see
   * `FailedPassEnd`): `held`, its session still held with its turns, scored again by its next
   * turn, its let-go or shutdown; else nothing holds its turns any more and the session's next
   * part continues `failed`. The caller ends its record visibly either way. `failed.end`
   * undefined for a rejection after which the results are stored
   * (`resultsStored`): the pass is done and not made again unless a turn comes. Not called for a
   * pass that a turn meanwhile asked to run again (`again`): that pass starts at once, and its
   * end is reported.
   */
  onFailed?(sessionId: string, error: unknown, failed: FailedSessionPass): void;
  /**
   * Whether a rejection of `score` came after the pass's results were stored (an evaluation-span
   * export given up on): the pass is not made again for it (scoring it again would score and
   * spend twice), only for a turn that comes later. @defaultValue never
   */
  resultsStored?(error: unknown): boolean;
  /** A held session let go to make room (`maxOpen`, `maxBytes`); scored first, cut `evicted`, when it waited. */
  onEvicted?(sessionId: string, bound: 'max_open' | 'max_bytes'): void;
  /**
   * A turn that would open a session did not fit in `maxBytes`: scored alone, not held, as
   * `pass` (the part it would have opened, cut `max_bytes`).
   */
  onRefused?(sessionId: string, traceId: string, pass: SessionPass): void;
  /**
   * The latest part of a session whose results are still kept (`MemoryResultsStore.lastSessionPart`),
   * asked before a tagged turn opens a part 1 for a session the let-go record no longer holds:
   * a session forgotten there, whose part 1 record is kept, opens the part after it instead, never
   * a part 1 that replaces the first part's results and passes for the conversation from its start.
   * `failed`: that part's record is `failed` (its next part continues `failed`).
   */
  keptPart?(
    sessionId: string,
  ): { part: number; cut: SessionCutCode | undefined; failed?: boolean } | undefined;
  /**
   * A turn of a session let go so long ago that no record of it is left: not scored with it.
   * `last`: the session's last part, why it was let go, and how many of its turns were dropped so
   * (this one included), as the let-go record remembers them.
   */
  onDropped?(
    sessionId: string,
    traceId: string,
    last: { part: number; why: SessionContinues; dropped: number },
  ): void;
  now?: () => number;
}

/** A pass of a session that failed after its retries, as `onFailed` (and `endFailedSessionPass`) is told of it. */
export interface FailedSessionPass {
  pass: SessionPass;
  /** Its turns, in the order they came. */
  traceIds: string[];
  /** What becomes of the part; `undefined` when its results were stored (`resultsStored`). */
  end: FailedPassEnd | undefined;
}
