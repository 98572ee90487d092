import { describe, expect, it } from 'vitest';
import { sessionLifeMs, sessionStoreBounds } from './session-queue.js';

/** The defaults: a session's policy, and its job's timing (the trace job's). */
const policy = { idleMs: 600_000, maxTraces: 50, maxAgeMs: 86_400_000 };
const timing = { attempts: 5, backoffMs: 1000, lockDurationMs: 30_000, stalledIntervalMs: 30_000 };

describe('sessionLifeMs', () => {
  it('keeps a part past its last pass: maxAgeMs + idleMs + retries, takeovers and an hour', () => {
    // Four retries waiting 1, 2, 4 and 8 s; five attempts each taken over after 30 + 30 s.
    const margin = (1 + 2 + 4 + 8) * 1000 + 5 * 60_000 + 3_600_000;
    expect(sessionLifeMs(policy, timing)).toBe(86_400_000 + 600_000 + margin);
    // One attempt: no retry to wait for.
    expect(sessionLifeMs(policy, { ...timing, attempts: 1 })).toBe(
      86_400_000 + 600_000 + 60_000 + 3_600_000,
    );
    // Exports retried by age (export.retryMaxAgeMs an hour, backoff at most a minute): a pass's
    // keys outlive its last export try, which comes up to an hour and a minute after its first.
    const exportRetry = { maxAgeMs: 3_600_000, maxBackoffMs: 60_000 };
    expect(sessionLifeMs(policy, { ...timing, exportRetry })).toBe(
      86_400_000 + 600_000 + margin + 3_600_000 + 60_000,
    );
  });
});

describe('sessionStoreBounds', () => {
  it("keeps a session's latest part number past the record of a part passed at the end of its life", () => {
    // Defaults: a part may be passed a day and ten minutes after it opened (max_age, then idle),
    // and its record is kept 24 hours from that pass. Kept max(life, retention) from the part's
    // opening, the number was gone about a day before the record: a tagged turn then opened
    // part 1 again, whose pass replaced part 1's record.
    const bytes = { maxSessionBytes: 1 << 20, maxBytes: 1 << 30 };
    const retention = 1.1 * 3_600_000; // results.retentionHours 1.1: 3,960,000.0000000005 ms
    const bounds = sessionStoreBounds(policy, bytes, timing, retention);
    const lastPass = 86_400_000 + 600_000; // after the part opened
    expect(bounds.seenMs).toBeGreaterThanOrEqual(lastPass + retention);
    expect(Number.isInteger(bounds.seenMs)).toBe(true); // Redis's PX takes no fraction
  });
});
