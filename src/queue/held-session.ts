import type { SpanDigest } from '../ingest/span-digest.js';
import type { SessionContinues, SessionCut } from './session-policy.js';

/** A turn a held session keeps: its spans, and the bytes they count against the bounds. */
export interface HeldTurn {
  spans: readonly SpanDigest[];
  bytes: number;
}

/** A session the memory driver holds (`createMemorySessionAssembler`): one part, its turns and its timers. */
export interface HeldSession {
  sessionId: string;
  part: number;
  continues: SessionContinues | undefined;
  /** The test case id a tagged turn carried (see `SessionPass.testCaseId`). */
  testCaseId: string | undefined;
  traces: Map<string, HeldTurn>;
  bytes: number;
  firstAtMs: number;
  lastAtMs: number;
  timer: NodeJS.Timeout | undefined;
  /** When its timer scores it; `undefined` while none is set. */
  scoreAtMs: number | undefined;
  /** Lets it go `maxAgeMs` after its first trace. */
  expiry: NodeJS.Timeout | undefined;
  /** Traces added since it was last scored (it waits to be scored while any are). */
  unscored: number;
  /** The bound it was cut at: scored as it stood, and let go. */
  cut: SessionCut | undefined;
  scoring: Promise<void> | undefined;
  /** A trace came while it was being scored: score it again after. */
  again: boolean;
  /**
   * A turn ended it (an end marker): a turn that comes after, such as an earlier turn whose
   * trace was scored later, scores it again at once, not `idleMs` later.
   */
  ended: boolean;
  /**
   * Its last pass failed after its retries and it is held with its turns, waiting for its next
   * turn or its let-go: room is made by letting it go first (which scores it again).
   */
  failed: boolean;
}
