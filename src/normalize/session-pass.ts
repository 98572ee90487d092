/**
 * The contract of a session's cuts and parts, shared by both drivers' session assemblers, the
 * results and the page (re-exported by `queue/session-policy.ts`). Types only.
 */

/**
 * Why a session's pass was made at a bound, not because the conversation went quiet or ended:
 * `max_traces` (`sessions.maxTraces`), `max_age` (`sessions.maxAgeMs` after its first trace),
 * `max_bytes` (`sessions.maxSessionBytes`), `evicted` (let go to make room: the memory driver's
 * `sessions.maxOpen`, or `sessions.maxBytes` in all). Shared by the result, the run record, the
 * page and the `cut` label of `spanscore_sessions_scored_total`.
 */
export type SessionCutCode = 'max_traces' | 'max_age' | 'max_bytes' | 'evicted';

/**
 * What a continuation continues (`SessionPass.continues`): the cut of the part before it; or,
 * when no bound cut that part's pass, `max_age` if it was held until `sessions.maxAgeMs` after its
 * first turn, else `idle`: it was scored whole once the conversation went quiet (`idleMs`) or a
 * turn ended it, and let go since (the memory driver's `sessions.maxOpen` or `sessions.maxBytes`),
 * so the later turn could not join it. `failed` (memory driver): that part's pass failed after
 * its retries and the part ended so (its run record `failed`, with why), whatever cut it had.
 * See `continuesAfter`.
 */
export type SessionContinues = SessionCutCode | 'idle' | 'failed';

/** A bound a session's pass was cut at: its code, and a sentence saying which and what it means. */
export interface SessionCut {
  /** Which bound: a label value and a record field. */
  code: SessionCutCode;
  /** What it means, for a person: the setting and what a later turn does. */
  reason: string;
}

/**
 * Which pass of a session is scored. A session cut at a bound or let go keeps its pass as part 1;
 * a turn that comes after opens part 2 (a continuation), and so on: a part never replaces an
 * earlier part's result, and a continuation says what it lacks (`continues`: the earlier part's
 * cut, or `idle`, whose turns it does not hold).
 */
export interface SessionPass {
  /** 1 for a session's first part; 2, 3… for its continuations. */
  part: number;
  /** The bound this pass was cut at, when one was. */
  cut?: SessionCut | undefined;
  /**
   * For a continuation (a `part` after 1): why the part before it ended, whose turns this one
   * lacks: its cut, or `idle` when none cut it (see {@link SessionContinues}).
   */
  continues?: SessionContinues | undefined;
  /**
   * The test case id a tagged turn of the session carried (this part's or an earlier one's): the
   * session test case a continuation whose own turns carry none is scored by. A test case id on
   * one of the pass's turns wins.
   */
  testCaseId?: string | undefined;
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
