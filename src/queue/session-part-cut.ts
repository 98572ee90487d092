import type { SessionCut, SessionCutCode } from '../normalize/session-pass.js';

/** The bounds a part of a session is cut at (`maxSessionBytes`: absent where bytes are not counted). */
export interface SessionPartBounds {
  maxTraces: number;
  maxAgeMs: number;
  maxSessionBytes?: number | undefined;
}

/**
 * A cut as a pass reports it, the same on both drivers: its code and a sentence naming the bound
 * and what became of it.
 */
export function sessionPartCut(code: SessionCutCode, bounds: SessionPartBounds): SessionCut {
  const later = 'scored as it stood; a later turn opens its next part';
  switch (code) {
    case 'max_traces':
      return { code, reason: `cut at ${bounds.maxTraces} traces (sessions.maxTraces): ${later}` };
    case 'max_age':
      return {
        code,
        reason: `cut ${duration(bounds.maxAgeMs)} after its first trace (sessions.maxAgeMs): ${later}`,
      };
    case 'max_bytes':
      return {
        code,
        reason: `cut at ${bounds.maxSessionBytes ?? 'its'} bytes (sessions.maxSessionBytes): ${later}`,
      };
    case 'evicted':
      return {
        code,
        reason: `let go to make room for other sessions (sessions.maxOpen or sessions.maxBytes): ${later}`,
      };
  }
}

/** `ms` as people say it: seconds (to a tenth) under two minutes, minutes under two hours, else hours. */
function duration(ms: number): string {
  if (ms < 120_000) return `${Math.round(ms / 100) / 10} seconds`;
  if (ms < 7_200_000) return `${Math.round(ms / 60_000)} minutes`;
  return `${Math.round(ms / 3_600_000)} hours`;
}
