import { parseSessionRecordKey } from './run-record-key.js';

/**
 * Which parts of each session have a run record kept in the memory results store, told of each
 * record key as it is kept and as it goes (any key: those of no session are passed over). One
 * entry a session with a kept part, one number a kept part: no more than the records themselves.
 */
export function keptSessionParts(): {
  kept(key: string): void;
  gone(key: string): void;
  /** The highest part of `sessionId` with a record kept; `undefined` when none is. */
  latest(sessionId: string): number | undefined;
} {
  const parts = new Map<string, Set<number>>();
  return {
    kept(key) {
      const named = parseSessionRecordKey(key);
      if (!named) return;
      let kept = parts.get(named.sessionId);
      if (!kept) parts.set(named.sessionId, (kept = new Set()));
      kept.add(named.part);
    },
    gone(key) {
      const named = parseSessionRecordKey(key);
      const kept = named && parts.get(named.sessionId);
      if (!kept) return;
      kept.delete(named.part);
      if (kept.size === 0) parts.delete(named.sessionId);
    },
    latest(sessionId) {
      const kept = parts.get(sessionId);
      if (!kept) return undefined;
      let latest = 0;
      for (const part of kept) if (part > latest) latest = part;
      return latest;
    },
  };
}
