import { classifyFailure } from './classify-failure.js';

/** Options of {@link retryWithBackoff}. */
export interface RetryOptions {
  /** Tries in all, counting the first. */
  attempts: number;
  /** Delay before the second try; doubles each time (as BullMQ's `exponential` backoff). */
  backoffMs: number;
  /** Called before each retry that uses an attempt. */
  onRetry?: (error: unknown, attempt: number) => void;
}

/**
 * Runs `run` until it resolves, retrying as {@link classifyFailure} says: `retry` after
 * `backoffMs × 2^(attempt-1)` while attempts remain, `rate_limited` after its pause without using
 * an attempt, `fail` never. Rejects with the last error. `run` is told whether this is its last
 * attempt (the judge pass then turns judge errors into `failed` results). The memory driver's
 * counterpart of a BullMQ job's `attempts` and `backoff`.
 */
export async function retryWithBackoff<T>(
  run: (finalAttempt: boolean) => Promise<T>,
  options: RetryOptions,
): Promise<T> {
  for (let attempt = 1; ;) {
    try {
      return await run(attempt >= options.attempts);
    } catch (error) {
      const failure = classifyFailure(error);
      if (failure.action === 'fail') throw error;
      if (failure.action === 'rate_limited') {
        await sleep(failure.pauseMs);
        continue;
      }
      if (attempt >= options.attempts) throw error;
      options.onRetry?.(error, attempt);
      await sleep(options.backoffMs * 2 ** (attempt - 1));
      attempt++;
    }
  }
}

// The global timer, not node:timers/promises: the clock tests fake is the global one.
function sleep(ms: number): Promise<void> {
  return new Promise(resolve => setTimeout(resolve, ms));
}
