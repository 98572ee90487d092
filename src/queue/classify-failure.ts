import { isSpanscoreError } from '../errors/spanscore-error.js';

/** How long a judge 429 without Retry-After pauses LLM scoring. */
export const DEFAULT_RATE_LIMIT_PAUSE_MS = 10_000;

/**
 * What a queue does with a failed attempt. `retry`: try again with backoff, using an attempt.
 * `rate_limited`: wait `pauseMs` and try again without using an attempt (the judge said 429).
 * `fail`: give up now; trying again cannot help (bad input, a bug).
 */
export type FailureAction =
  { action: 'retry' } | { action: 'rate_limited'; pauseMs: number } | { action: 'fail' };

/**
 * The one retry classifier both queue drivers use, for trace jobs and judge jobs alike. Only
 * failures of a service spanscore calls (`upstream` errors: the OTLP backend, the judge, Redis)
 * are worth retrying; a judge 429 (`SS_JUDGE_RATE_LIMITED`) pauses for its Retry-After.
 */
export function classifyFailure(error: unknown): FailureAction {
  if (!isSpanscoreError(error) || error.category !== 'upstream') return { action: 'fail' };
  if (error.code === 'SS_JUDGE_RATE_LIMITED') {
    const pauseMs =
      error.retryAfterSeconds !== undefined
        ? Math.ceil(error.retryAfterSeconds * 1000)
        : DEFAULT_RATE_LIMIT_PAUSE_MS;
    return { action: 'rate_limited', pauseMs: Math.max(pauseMs, 1) };
  }
  return { action: 'retry' };
}

/**
 * Which scorer errors the judge pass lets reject (to retry the job, or pause for a 429) rather
 * than report as a `failed` result: retryable ones, except on the last attempt, where the trace
 * gets a `failed` result with the reason instead. A 429 always rejects: it uses no attempt.
 */
export function judgeErrorsToRetry(finalAttempt: boolean): (error: unknown) => boolean {
  return error => {
    const { action } = classifyFailure(error);
    return action === 'rate_limited' || (action === 'retry' && !finalAttempt);
  };
}
