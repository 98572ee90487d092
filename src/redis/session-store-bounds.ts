/** The bounds the store holds sessions to (the config's `sessions`, and a part's life). */
export interface SessionStoreBounds {
  idleMs: number;
  maxTraces: number;
  maxAgeMs: number;
  maxSessionBytes: number;
  /** Bytes all sessions hold together: past it, no session or part is opened. */
  maxBytes: number;
  /** How long a part's keys live after its first turn (see `sessionLifeMs`). */
  lifeMs: number;
  /**
   * How long the number of a session's latest part is kept after that part opened (one small
   * key a session): the part's life and then as long as its record is (the results' retention,
   * from its last pass), so that a tagged turn coming after its parts' keys are gone opens the
   * next part, never part 1 again.
   * @defaultValue `lifeMs`
   */
  seenMs?: number | undefined;
}
