import type { SessionCut } from '../normalize/session-pass.js';

/**
 * The cut of a part scored alone because admission refused it (the bytes all sessions hold were
 * at `sessions.maxBytes` when its turn would have opened it), the same on both drivers: code
 * `max_bytes`, and a sentence saying so. `marked` false (the bullmq driver, when the marks of
 * refused parts are at their bound): the part is not on record as closed, so a later turn of the
 * session may open it again, and that part's pass then replaces this one; the sentence says so.
 */
export function sessionRefusedCut(maxBytes: number, marked = true): SessionCut {
  const alone = `not held: the sessions held filled sessions.maxBytes (${maxBytes} bytes) when this turn came: scored alone, as this part of its session`;
  return {
    code: 'max_bytes',
    reason: marked
      ? `${alone}; a later turn opens its next part`
      : `${alone}; not marked closed (the marks of refused parts were at their bound, 1/16 of sessions.maxBytes): a later turn may open this part again, and its pass replaces this one`,
  };
}
