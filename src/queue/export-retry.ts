import { isSpanscoreError } from '../errors/spanscore-error.js';

/**
 * How failures to export evaluation spans are retried: by age, not by count, so an outage of the
 * trace backend of minutes to an hour loses nothing. Other retryable failures (a judge 5xx, Redis)
 * keep their attempt count.
 */
export interface ExportRetryPolicy {
  /** Give up on a trace whose export still fails this long after its job was created. */
  maxAgeMs: number;
  /** The exponential backoff stops growing here. */
  maxBackoffMs: number;
}

/**
 * What a job's work may be late by for a backlog of jobs or a worker outage, in the margins that
 * outlast a job's retries ({@link exportRetriesOutlastMs}, `sessionLifeMarginMs`).
 */
export const LATE_JOB_MARGIN_MS = 3_600_000;

/**
 * How long after a job's first failed export its export may still be tried: tries go on while
 * the job is younger than `maxAgeMs`, and the last waits out a backoff of up to `maxBackoffMs`.
 */
export function exportRetriesOutlastMs(policy: ExportRetryPolicy): number {
  return policy.maxAgeMs + policy.maxBackoffMs;
}

/** A BullMQ job's attempts when export failures are retried by age: the processor decides. */
export const UNBOUNDED_ATTEMPTS = 1_000_000;

/** The name of the backoff strategy BullMQ workers get (see {@link backoffDelay}). */
export const BACKOFF_STRATEGY = 'spanscore';

/** True for an evaluation-span export that failed (`SS_EXPORT_FAILED`). */
export function isExportFailure(error: unknown): boolean {
  return isSpanscoreError(error) && error.code === 'SS_EXPORT_FAILED';
}

/** True for a failure whose last cause was an evaluation-span export (the BullMQ processors' `exportGaveUp`). */
export function isExportGiveUp(error: unknown): boolean {
  return isExportFailure(error) || (error instanceof Error && isExportFailure(error.cause));
}

/** The delay before retry `n` (1 for the first): `baseMs × 2^(n-1)`, at most `maxMs`. */
export function backoffDelay(n: number, baseMs: number, maxMs: number): number {
  return Math.min(maxMs, baseMs * 2 ** Math.max(0, Math.min(n - 1, 30)));
}

/**
 * Whether a retryable failure of attempt `attemptsMade + 1` is tried again: an export failure
 * while the job is younger than `policy.maxAgeMs`, any other while attempts remain. The reason
 * says why not, for the job's failed reason and the run record.
 */
export function shouldRetry(
  error: unknown,
  attempt: { attemptsMade: number; attempts: number; ageMs: number },
  policy: ExportRetryPolicy,
): { retry: true } | { retry: false; reason: string } {
  const message = error instanceof Error ? error.message : String(error);
  if (isExportFailure(error)) {
    return attempt.ageMs < policy.maxAgeMs
      ? { retry: true }
      : {
          retry: false,
          reason: `export still failing after ${Math.round(attempt.ageMs / 1000)} s (export.retryMaxAgeMs ${policy.maxAgeMs}): ${message}`,
        };
  }
  return attempt.attemptsMade + 1 < attempt.attempts
    ? { retry: true }
    : { retry: false, reason: message };
}
