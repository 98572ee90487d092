import type { SpanDigest } from '../ingest/span-digest.js';
import {
  continuesAfter,
  sessionCut,
  sessionDelayMs,
  type OpenSession,
  type SessionContinues,
  type SessionCutCode,
  type SessionPass,
  type SessionTurnInput,
} from './session-policy.js';
import { sessionPartCut } from './session-part-cut.js';
import { sessionRefusedCut } from './session-refused-cut.js';
import { sessionIdHash as idHash } from './session-id-hash.js';
import { sessionTurnBytes } from './session-turn-bytes.js';
import type { SessionTraceSpans } from '../score/score-session.js';
import type { MemorySessionAssemblerOptions } from './memory-session-assembler-options.js';
import type { HeldSession } from './held-session.js';

export type {
  FailedSessionPass,
  MemorySessionAssemblerOptions,
} from './memory-session-assembler-options.js';

/** The memory driver's sessions. */
export interface MemorySessionAssembler {
  /** Adds a scored trace to its session, scheduling the session's scoring (see `SessionPolicy`). */
  add(turn: SessionTurnInput, spans: readonly SpanDigest[]): void;
  /** Sessions held, how many of them wait to be scored, their bytes, and sessions let go on record. */
  stats(): { held: number; waiting: number; bytes: number; letGo: number };
  /** The sessions held, newest first, at most `limit`. */
  open(limit: number): OpenSession[];
  /** Scores every session waiting, now, and resolves when all scoring under way has ended. */
  close(): Promise<void>;
}

/** What a let-go record entry costs beyond its id. */
const LET_GO_ENTRY_BYTES = 64;

/**
 * The memory driver's sessions: each held session keeps its turns' spans (what session scoring
 * reads of them: `sessionTurnSpans`), in this process, so that it can be scored when complete and
 * again when a turn comes later. A session is scored `idleMs` after its latest trace (one timer
 * per session, reset by each trace) and at once when a trace ends it; one scoring of a session at
 * a time (a trace meanwhile scores it again after).
 *
 * Bounds, and what each does (never a silent fragment): at `maxTraces` traces, or a turn that
 * would take it past `maxSessionBytes`, or `maxAgeMs` after its first trace, the session is scored
 * as it stands with that cut and let go; let go to make room (`maxOpen`, `maxBytes`) it is scored
 * with cut `evicted` when it waits. Every session let go is kept on a bounded record (see
 * `letGo`), so that a later turn, tagged or not, opens its next part (`SessionPass.part`), which
 * says what it continues; a part never replaces another's results. A turn that would open a
 * session when `maxBytes` is full (sessions waiting fill it) is scored alone (`onRefused`). A pass
 * that fails after its retries ends its part (`onFailed`; a session still held keeps its turns),
 * whose next part continues `failed` (its cut, if a bound cut it); one whose results were stored (`resultsStored`) is done.
 * Nothing survives a restart; `close()` scores what waits.
 */
export function createMemorySessionAssembler(
  options: MemorySessionAssemblerOptions,
): MemorySessionAssembler {
  const now = options.now ?? Date.now;
  const { policy } = options;
  // Insertion order is age order: the first is the oldest.
  const sessions = new Map<string, HeldSession>();
  const letGo = new Map<
    string,
    { part: number; why: SessionContinues; testCaseId: string | undefined; bytes: number }
  >();
  // A forgotten session's id hash → its last part and why it was let go (`forgottenEntry`), and
  // how many of its turns were dropped since.
  const forgotten = new Map<number, { last: number; dropped: number }>();
  const underWay = new Set<Promise<void>>();
  let heldBytes = 0;
  let letGoBytes = 0;
  // Set by close(): a pass failing from then on is not scored again.
  let closing = false;

  const run = (sessionId: string, traces: SessionTraceSpans[], pass: SessionPass) => {
    const done = options.score(sessionId, traces, pass);
    underWay.add(done);
    void done.finally(() => underWay.delete(done)).catch(() => undefined);
    return done;
  };

  const scoreNow = (held: HeldSession): Promise<void> => {
    clearTimeout(held.timer);
    held.timer = undefined;
    held.scoreAtMs = undefined;
    if (held.scoring) {
      held.again = true;
      return held.scoring;
    }
    held.unscored = 0;
    held.failed = false;
    held.cut ??= sessionCut(policy, held.traces.size, held.firstAtMs, now());
    const traces = [...held.traces].map(([traceId, turn]) => ({ traceId, spans: turn.spans }));
    const pass: SessionPass = {
      part: held.part,
      ...(held.cut && { cut: held.cut }),
      ...(held.continues && { continues: held.continues }),
      ...(held.testCaseId !== undefined && { testCaseId: held.testCaseId }),
    };
    const done = run(held.sessionId, traces, pass)
      .catch((error: unknown) => {
        const traceIds = traces.map(t => t.traceId);
        // Its results are stored (an export given up on): the pass is done, not made again
        // unless a turn comes (as after any pass).
        if (options.resultsStored?.(error)) {
          options.onFailed?.(held.sessionId, error, { pass, traceIds, end: undefined });
          return;
        }
        held.unscored = Math.max(held.unscored, 1);
        // A turn came meanwhile: the pass runs again at once (below), with every turn.
        if (held.again) return;
        // Still held, it keeps its turns: its next turn, its let-go or shutdown scores it again
        // (a short outage does not split the conversation). Let go (or closing), nothing holds
        // its turns to score them again: its next part continues `failed`.
        const heldNow = sessions.get(held.sessionId) === held;
        const end = !heldNow ? 'let_go' : closing ? 'shutdown' : 'held';
        if (end === 'held') held.failed = true;
        else markFailed(held.sessionId, held.part);
        options.onFailed?.(held.sessionId, error, { pass, traceIds, end });
      })
      .finally(() => {
        held.scoring = undefined;
        if (held.again) {
          held.again = false;
          void scoreNow(held);
        }
      });
    held.scoring = done;
    return done;
  };

  const schedule = (held: HeldSession, delayMs: number): void => {
    clearTimeout(held.timer);
    held.scoreAtMs = now() + delayMs;
    held.timer = setTimeout(() => void scoreNow(held), delayMs);
    held.timer.unref();
  };

  /** Keeps `sessionId` on the let-go record, the oldest entries dropped past its bounds. */
  const remember = (
    sessionId: string,
    part: number,
    why: SessionContinues,
    testCaseId: string | undefined,
  ): void => {
    forget(sessionId);
    // Back on the record: its hash says nothing more.
    if (forgotten.size > 0) forgotten.delete(idHash(sessionId));
    const bytes = sessionId.length + (testCaseId?.length ?? 0) + LET_GO_ENTRY_BYTES;
    letGo.set(sessionId, { part, why, testCaseId, bytes });
    letGoBytes += bytes;
    while (letGo.size > options.letGo.maxEntries || letGoBytes > options.letGo.maxBytes) {
      const [oldestId] = letGo.keys();
      const oldest = letGo.get(oldestId!)!;
      forget(oldestId!);
      forgotten.set(idHash(oldestId!), {
        last: forgottenEntry(oldest.part, oldest.why),
        dropped: 0,
      });
      if (forgotten.size > options.letGo.maxEntries)
        forgotten.delete(forgotten.keys().next().value!);
    }
  };

  const forget = (sessionId: string): void => {
    const entry = letGo.get(sessionId);
    if (!entry) return;
    letGo.delete(sessionId);
    letGoBytes -= entry.bytes;
  };

  /**
   * Lets a held session go: scored as it stands first when it waits (`why` its cut, if none is).
   * Its next part continues its cut; without one, `max_age` or `idle` (`continuesAfter`).
   */
  const release = (held: HeldSession, why: SessionCutCode): void => {
    detach(held);
    if (held.unscored > 0 || held.again) {
      held.cut ??= sessionPartCut(why, policy);
      void scoreNow(held);
    }
    remember(held.sessionId, held.part, continuesAfter(held.cut?.code, why), held.testCaseId);
  };

  /** Stops holding `held`: its timers cleared, its bytes given back. */
  const detach = (held: HeldSession): void => {
    clearTimeout(held.timer);
    clearTimeout(held.expiry);
    held.timer = held.expiry = undefined;
    held.scoreAtMs = undefined;
    if (sessions.get(held.sessionId) !== held) return;
    sessions.delete(held.sessionId);
    heldBytes -= held.bytes;
  };

  /**
   * Part `part` of a session let go ended `failed` (its pass failed after its retries): what
   * continues it says so, on the let-go record or in the next part already opened, unless a
   * bound cut it: the cut says why its turns are not in the next part, as on the bullmq driver
   * (its own record says it failed).
   */
  const markFailed = (sessionId: string, part: number): void => {
    const entry = letGo.get(sessionId);
    if (entry?.part === part) entry.why = failedUnlessCut(entry.why);
    const next = sessions.get(sessionId);
    if (next?.part === part + 1 && next.continues !== undefined)
      next.continues = failedUnlessCut(next.continues);
  };

  const evictOldest = (bound: 'max_open' | 'max_bytes', keep?: HeldSession, scoredOnly = false) => {
    for (const held of sessions.values()) {
      // Room for a new session: one that waits for its pass stays, one whose pass failed goes.
      if (held === keep || (scoredOnly && ((held.unscored > 0 && !held.failed) || held.scoring)))
        continue;
      release(held, 'evicted');
      options.onEvicted?.(held.sessionId, bound);
      return true;
    }
    return false;
  };

  /**
   * Opens a session for `turn` (a continuation when its session was let go); `undefined` when it
   * opens none: not a session test case's, or refused (then scored alone).
   */
  const open = (
    turn: SessionTurnInput,
    spans: readonly SpanDigest[],
    bytes: number,
    t: number,
  ): HeldSession | undefined => {
    const onRecord = letGo.get(turn.sessionId);
    const remembered =
      onRecord || forgotten.size === 0 ? undefined : forgotten.get(idHash(turn.sessionId));
    if (!onRecord && !turn.tagged) {
      // Only a trace of a session test case opens a session (see `SessionTurnInput.tagged`); one
      // of a session let go and forgotten since is counted, not taken for such traffic.
      if (remembered !== undefined)
        options.onDropped?.(turn.sessionId, turn.traceId, {
          ...fromForgotten(remembered.last),
          dropped: ++remembered.dropped,
        });
      return undefined;
    }
    // A tagged turn of a session forgotten since opens the part after its last, as one on the
    // record does: a part 1 would pass for the whole conversation and replace its first part.
    const before =
      onRecord ??
      (remembered === undefined ? keptBefore(turn.sessionId) : fromForgotten(remembered.last));
    const part = before ? before.part + 1 : 1;
    const testCaseId = turn.testCaseId ?? before?.testCaseId;
    // Admission refuses new sessions, not traces: sessions already scored make room first.
    while (heldBytes + bytes > options.maxBytes && evictOldest('max_bytes', undefined, true));
    if (heldBytes + bytes > options.maxBytes) {
      const pass = scoreAlone(turn, spans, { part, continues: before?.why, testCaseId });
      options.onRefused?.(turn.sessionId, turn.traceId, pass);
      return undefined;
    }
    forget(turn.sessionId);
    while (sessions.size >= options.maxOpen && evictOldest('max_open'));
    const held: HeldSession = {
      sessionId: turn.sessionId,
      part,
      continues: before?.why,
      testCaseId,
      traces: new Map(),
      bytes: 0,
      firstAtMs: t,
      lastAtMs: t,
      timer: undefined,
      scoreAtMs: undefined,
      expiry: undefined,
      unscored: 0,
      cut: undefined,
      scoring: undefined,
      again: false,
      ended: false,
      failed: false,
    };
    held.expiry = setTimeout(() => release(held, 'max_age'), policy.maxAgeMs).unref();
    sessions.set(turn.sessionId, held);
    return held;
  };

  /**
   * A session's latest part kept in the results, as the let-go record gives one (no test case
   * id): continuing its cut, else `failed` when its record is, else `idle`.
   */
  const keptBefore = (
    sessionId: string,
  ): { part: number; why: SessionContinues; testCaseId: undefined } | undefined => {
    const kept = options.keptPart?.(sessionId);
    const why = kept?.cut || !kept?.failed ? continuesAfter(kept?.cut) : 'failed';
    return kept && { part: kept.part, why, testCaseId: undefined };
  };

  /** A refused turn's pass: its session of one turn, scored now, never held. Returns the pass. */
  const scoreAlone = (
    turn: SessionTurnInput,
    spans: readonly SpanDigest[],
    { part, continues, testCaseId }: Omit<SessionPass, 'cut'>,
  ): SessionPass => {
    const pass: SessionPass = {
      part,
      cut: sessionRefusedCut(options.maxBytes),
      ...(continues && { continues }),
      ...(testCaseId !== undefined && { testCaseId }),
    };
    remember(turn.sessionId, part, 'max_bytes', testCaseId);
    void run(turn.sessionId, [{ traceId: turn.traceId, spans }], pass).catch((error: unknown) => {
      if (!options.resultsStored?.(error)) markFailed(turn.sessionId, part);
      options.onFailed?.(turn.sessionId, error, { pass, traceIds: [turn.traceId], end: 'alone' });
    });
    return pass;
  };

  return {
    add(turn, spans) {
      const t = now();
      const bytes = sessionTurnBytes(spans);
      let held = sessions.get(turn.sessionId);
      if (held && !held.traces.has(turn.traceId)) {
        // A bound it reached lets it go as it stands: this turn opens its next part.
        const cut =
          t - held.firstAtMs >= policy.maxAgeMs
            ? sessionPartCut('max_age', policy)
            : policy.maxSessionBytes !== undefined && held.bytes + bytes > policy.maxSessionBytes
              ? sessionPartCut('max_bytes', policy)
              : undefined;
        if (cut) {
          held.cut ??= cut;
          release(held, cut.code);
          held = undefined;
        }
      }
      held ??= open(turn, spans, bytes, t);
      if (!held) return;
      held.testCaseId ??= turn.testCaseId;
      const previous = held.traces.get(turn.traceId);
      held.traces.set(turn.traceId, { spans, bytes });
      held.bytes += bytes - (previous?.bytes ?? 0);
      heldBytes += bytes - (previous?.bytes ?? 0);
      held.unscored++;
      held.lastAtMs = t;
      held.ended ||= turn.ends;
      const cut = sessionCut(policy, held.traces.size, held.firstAtMs, t, held.bytes);
      if (cut) {
        held.cut = cut;
        release(held, cut.code);
        return;
      }
      // A held session's turn is always added: the oldest others make room.
      while (heldBytes > options.maxBytes && evictOldest('max_bytes', held));
      if (held.scoring) held.again = true;
      else schedule(held, sessionDelayMs(policy, { ends: held.ended }, false, t - held.firstAtMs));
    },
    stats() {
      let waiting = 0;
      for (const held of sessions.values()) if (held.unscored > 0) waiting++;
      return { held: sessions.size, waiting, bytes: heldBytes, letGo: letGo.size };
    },
    open(limit) {
      const out: OpenSession[] = [];
      for (const held of [...sessions.values()].reverse()) {
        if (out.length >= limit) break;
        out.push({
          sessionId: held.sessionId,
          part: held.part,
          traceIds: [...held.traces.keys()],
          firstAtMs: held.firstAtMs,
          lastAtMs: held.lastAtMs,
          // A failed pass, held: scored again at its let-go, or by its next turn before.
          scoreAtMs: held.scoring
            ? undefined
            : (held.scoreAtMs ?? (held.failed ? held.firstAtMs + policy.maxAgeMs : undefined)),
          bytes: held.bytes,
        });
      }
      return out;
    },
    async close() {
      closing = true;
      for (const held of sessions.values()) {
        clearTimeout(held.expiry);
        if (held.unscored > 0) void scoreNow(held);
        else clearTimeout(held.timer);
      }
      while (underWay.size > 0) await Promise.allSettled([...underWay]);
    },
  };
}

const CUT_CODES: readonly SessionContinues[] = [
  'max_traces',
  'max_age',
  'max_bytes',
  'evicted',
  'idle',
  'failed',
];

/** `failed` for a part let go uncut (`idle`), else its cut: a cut is said before a failure. */
function failedUnlessCut(why: SessionContinues): SessionContinues {
  return why === 'idle' ? 'failed' : why;
}

/** A forgotten session's last part and why it was let go, as one number. */
function forgottenEntry(part: number, why: SessionContinues): number {
  return part * CUT_CODES.length + CUT_CODES.indexOf(why);
}

/** What {@link forgottenEntry} keeps, as the let-go record gives it (no test case id). */
function fromForgotten(entry: number): {
  part: number;
  why: SessionContinues;
  testCaseId: undefined;
} {
  return {
    part: Math.floor(entry / CUT_CODES.length),
    why: CUT_CODES[entry % CUT_CODES.length]!,
    testCaseId: undefined,
  };
}
