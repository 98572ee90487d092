import { SpanscoreError } from '../errors/spanscore-error.js';
import { classifyFailure, MAX_RATE_LIMITED_WAITS } from './classify-failure.js';
import {
  backoffDelay,
  isExportFailure,
  shouldRetry,
  type ExportRetryPolicy,
} from './export-retry.js';

/** Options of {@link retryWithBackoff}. */
export interface RetryOptions {
  /** Tries in all, counting the first. */
  attempts: number;
  /** Delay before the second try; doubles each time (as BullMQ's `exponential` backoff). */
  backoffMs: number;
  /** Called before each retry that uses an attempt. */
  onRetry?: (error: unknown, attempt: number) => void;
  /** Export failures are retried by age instead of by count (see `shouldRetry`). */
  exportRetry?: ExportRetryPolicy;
  /**
   * Runs each attempt, e.g. in a slot of a concurrency-limited queue; the waits between attempts
   * happen outside it, so a backoff never holds a slot. @defaultValue runs it at once
   */
  slot?: <T>(attempt: () => Promise<T>) => Promise<T>;
  /**
   * Aborted (at shutdown): no further attempt is made. The wait under way ends at once and the
   * call rejects with the last error, an export failure as `SS_EXPORT_FAILED` saying it was not
   * retried because the process stopped.
   */
  signal?: AbortSignal;
}

/**
 * A first attempt the caller made itself and that failed: its error, and when it started (the
 * age export failures are retried by counts from there). The caller's path where nothing fails
 * then makes none of the retry loop's objects.
 */
export interface FailedFirstAttempt {
  error: unknown;
  startedMs: number;
}

/**
 * Runs `run` until it resolves, retrying as {@link classifyFailure} says: `retry` after
 * `backoffMs × 2^(attempt-1)` while attempts remain (export failures, with `exportRetry`, while
 * younger than its `maxAgeMs`, the backoff capped at its `maxBackoffMs`), `rate_limited` after its pause without using
 * an attempt, up to {@link MAX_RATE_LIMITED_WAITS} pauses (then it rejects with the 429), `fail`
 * never. Rejects with the last error. `run` is told whether this is its last attempt, how many
 * 429s it waited out (the judge pass then turns judge errors into `failed` results), and whether
 * an earlier try failed to export (`isExportFailure`: its results were recorded, this try goes to
 * the delivering sinks only, `ScoreOptions.exportRetry`). With `failed`, the first
 * attempt was the caller's and failed so: the loop goes on from its error. The memory driver's
 * counterpart of a BullMQ job's `attempts` and `backoff`.
 */
export async function retryWithBackoff<T>(
  run: (finalAttempt: boolean, rateLimitedWaits: number, exportRetry: boolean) => Promise<T>,
  options: RetryOptions,
  failed?: FailedFirstAttempt,
): Promise<T> {
  const started = failed ? failed.startedMs : Date.now();
  const slot = options.slot;
  // An earlier try failed to export (its results were recorded): `run` is told, to export only.
  let exportFailed = false;
  for (let attempt = 1, exportRetries = 0, rateLimitedWaits = 0, first = failed; ;) {
    try {
      if (first) {
        const { error } = first;
        first = undefined;
        throw error;
      }
      const final = attempt >= options.attempts;
      // Without a slot, no closures: this runs once per trace on the scoring path.
      return await (slot
        ? slot(() => run(final, rateLimitedWaits, exportFailed))
        : run(final, rateLimitedWaits, exportFailed));
    } catch (error) {
      if (isExportFailure(error)) exportFailed = true;
      const failure = classifyFailure(error);
      if (failure.action === 'fail') throw error;
      if (options.signal?.aborted) throw stopped(error);
      if (failure.action === 'rate_limited') {
        // `run` was told how many it waited out, to end a 429 itself; past them, it is thrown.
        if (rateLimitedWaits >= MAX_RATE_LIMITED_WAITS) throw error;
        rateLimitedWaits++;
        await sleep(failure.pauseMs, options.signal);
        continue;
      }
      if (options.exportRetry && isExportFailure(error)) {
        const decision = shouldRetry(
          error,
          { attemptsMade: attempt - 1, attempts: options.attempts, ageMs: Date.now() - started },
          options.exportRetry,
        );
        // Given up: still an export failure, saying for how long it was retried.
        if (!decision.retry)
          throw new SpanscoreError('SS_EXPORT_FAILED', decision.reason, { cause: error });
        options.onRetry?.(error, attempt);
        await sleep(
          backoffDelay(++exportRetries, options.backoffMs, options.exportRetry.maxBackoffMs),
          options.signal,
        );
        if (options.signal?.aborted) throw stopped(error);
        continue;
      }
      if (attempt >= options.attempts) throw error;
      options.onRetry?.(error, attempt);
      await sleep(backoffDelay(attempt, options.backoffMs, Infinity), options.signal);
      if (options.signal?.aborted) throw stopped(error);
      attempt++;
    }
  }
}

/** The error a retry loop ends with when it was stopped before its next attempt. */
function stopped(error: unknown): unknown {
  if (!isExportFailure(error)) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new SpanscoreError(
    'SS_EXPORT_FAILED',
    `not exported: the process stopped while the export was being retried (${message})`,
    { cause: error },
  );
}

// The global timer, not node:timers/promises: the clock tests fake is the global one.
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise(resolve => {
    if (signal?.aborted) return resolve();
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
