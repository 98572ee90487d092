import type { SpanDigest } from '../ingest/span-digest.js';
import type { SessionTraceSpans } from '../score/score-session.js';
import {
  sessionCut,
  sessionDelayMs,
  type SessionPolicy,
  type SessionTurnInput,
} from './session-policy.js';

/** Options of {@link createMemorySessionAssembler}. */
export interface MemorySessionAssemblerOptions {
  policy: SessionPolicy;
  /** Sessions held at most; when full, the oldest is scored (if it has not been) and let go. */
  maxOpen: number;
  /**
   * Scores a session as it stands (`cut`: why, when a bound cut it); retries are its own. A
   * rejection is reported through `onFailed` and the session stays held, to be scored again by
   * its next trace.
   */
  score(sessionId: string, traces: SessionTraceSpans[], cut: string | undefined): Promise<void>;
  onFailed?(sessionId: string, error: unknown): void;
  /** A held session let go because `maxOpen` was reached (scored first when it had not been). */
  onEvicted?(sessionId: string): void;
  /** A trace not added: its session was cut at `maxTraces`. */
  onDropped?(sessionId: string, traceId: string): void;
  now?: () => number;
}

/** The memory driver's sessions. */
export interface MemorySessionAssembler {
  /** Adds a scored trace to its session, scheduling the session's scoring (see `SessionPolicy`). */
  add(turn: SessionTurnInput, spans: readonly SpanDigest[]): void;
  /** Sessions held, and how many of them wait to be scored. */
  stats(): { held: number; waiting: number };
  /** Scores every session waiting, now, and resolves when all scoring under way has ended. */
  close(): Promise<void>;
}

interface HeldSession {
  traces: Map<string, readonly SpanDigest[]>;
  firstAtMs: number;
  timer: NodeJS.Timeout | undefined;
  /** Lets it go `maxAgeMs` after its first trace. */
  expiry: NodeJS.Timeout;
  /** Traces added since it was last scored (it waits to be scored while any are). */
  unscored: number;
  /** A bound cut it: scored as it stood, no trace is added any more. */
  cut: string | undefined;
  scoring: Promise<void> | undefined;
  /** A trace came while it was being scored: score it again after. */
  again: boolean;
}

/**
 * The memory driver's sessions: each held session keeps its traces' spans, in this process, so
 * that it can be scored when complete and again when a trace comes later. A session is scored
 * `idleMs` after its latest trace (one timer per session, reset by each trace), at once when a
 * trace ends it, and as it stands (cut) at `maxTraces` traces or `maxAgeMs` after its first;
 * one scoring of a session at a time (a trace meanwhile scores it again after). Sessions are held
 * until `maxAgeMs` after their first trace, at most `maxOpen` of them: when full, the oldest is
 * scored now if it waits, and let go. Nothing survives a restart; `close()` scores what waits.
 */
export function createMemorySessionAssembler(
  options: MemorySessionAssemblerOptions,
): MemorySessionAssembler {
  const now = options.now ?? Date.now;
  const { policy } = options;
  // Insertion order is age order: the first is the oldest.
  const sessions = new Map<string, HeldSession>();
  const underWay = new Set<Promise<void>>();

  const scoreNow = (sessionId: string, held: HeldSession): Promise<void> => {
    clearTimeout(held.timer);
    held.timer = undefined;
    if (held.scoring) {
      held.again = true;
      return held.scoring;
    }
    held.unscored = 0;
    held.cut ??= sessionCut(policy, held.traces.size, held.firstAtMs, now());
    const traces = [...held.traces].map(([traceId, spans]) => ({ traceId, spans }));
    const done = options
      .score(sessionId, traces, held.cut)
      .catch((error: unknown) => {
        held.unscored = Math.max(held.unscored, 1);
        options.onFailed?.(sessionId, error);
      })
      .finally(() => {
        held.scoring = undefined;
        underWay.delete(done);
        if (held.again) {
          held.again = false;
          void scoreNow(sessionId, held);
        }
      });
    held.scoring = done;
    underWay.add(done);
    return done;
  };

  const schedule = (sessionId: string, held: HeldSession, delayMs: number): void => {
    clearTimeout(held.timer);
    held.timer = setTimeout(() => void scoreNow(sessionId, held), delayMs);
    held.timer.unref();
  };

  const letGo = (sessionId: string, held: HeldSession): void => {
    clearTimeout(held.timer);
    clearTimeout(held.expiry);
    if (sessions.get(sessionId) === held) sessions.delete(sessionId);
    if (held.unscored > 0 || held.again) void scoreNow(sessionId, held);
  };

  return {
    add(turn, spans) {
      const t = now();
      let held = sessions.get(turn.sessionId);
      if (held && t - held.firstAtMs >= policy.maxAgeMs && !held.scoring) {
        // Past its age, the session was scored as it stood; a trace now starts a new one.
        letGo(turn.sessionId, held);
        held = undefined;
      }
      if (!held) {
        // Only a trace of a session test case opens a session (see `SessionTurnInput.tagged`).
        if (!turn.tagged) return;
        while (sessions.size >= options.maxOpen) {
          const [oldestId, oldest] = sessions.entries().next().value!;
          letGo(oldestId, oldest);
          options.onEvicted?.(oldestId);
        }
        const sessionId = turn.sessionId;
        const created: HeldSession = {
          traces: new Map(),
          firstAtMs: t,
          timer: undefined,
          expiry: setTimeout(() => letGo(sessionId, created), policy.maxAgeMs).unref(),
          unscored: 0,
          cut: undefined,
          scoring: undefined,
          again: false,
        };
        held = created;
        sessions.set(turn.sessionId, held);
      }
      if (held.cut !== undefined && !held.traces.has(turn.traceId)) {
        options.onDropped?.(turn.sessionId, turn.traceId);
        return;
      }
      held.traces.set(turn.traceId, spans);
      held.unscored++;
      held.cut = sessionCut(policy, held.traces.size, held.firstAtMs, t);
      if (held.scoring) held.again = true;
      else
        schedule(
          turn.sessionId,
          held,
          sessionDelayMs(policy, turn, held.cut !== undefined, t - held.firstAtMs),
        );
    },
    stats() {
      let waiting = 0;
      for (const held of sessions.values()) if (held.unscored > 0) waiting++;
      return { held: sessions.size, waiting };
    },
    async close() {
      for (const [sessionId, held] of sessions) {
        clearTimeout(held.expiry);
        if (held.unscored > 0) void scoreNow(sessionId, held);
        else clearTimeout(held.timer);
      }
      while (underWay.size > 0) await Promise.all([...underWay]);
    },
  };
}
