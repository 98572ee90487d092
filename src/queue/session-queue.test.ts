import { describe, expect, it } from 'vitest';
import { sessionLifeMs } from './session-queue.js';

describe('sessionLifeMs', () => {
  it('keeps a part past its last pass: maxAgeMs + idleMs + retries, takeovers and an hour', () => {
    const policy = { idleMs: 600_000, maxTraces: 50, maxAgeMs: 86_400_000 };
    const timing = {
      attempts: 5,
      backoffMs: 1000,
      lockDurationMs: 30_000,
      stalledIntervalMs: 30_000,
    };
    // Four retries waiting 1, 2, 4 and 8 s; five attempts each taken over after 30 + 30 s.
    const margin = (1 + 2 + 4 + 8) * 1000 + 5 * 60_000 + 3_600_000;
    expect(sessionLifeMs(policy, timing)).toBe(86_400_000 + 600_000 + margin);
    // One attempt: no retry to wait for.
    expect(sessionLifeMs(policy, { ...timing, attempts: 1 })).toBe(
      86_400_000 + 600_000 + 60_000 + 3_600_000,
    );
  });
});
