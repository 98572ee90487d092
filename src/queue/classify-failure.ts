import { isSpanscoreError, SpanscoreError } from '../errors/spanscore-error.js';

/** How long a judge 429 without Retry-After pauses LLM scoring. */
export const DEFAULT_RATE_LIMIT_PAUSE_MS = 10_000;

/**
 * Judge 429s one judge pass (a trace's, on either driver) waits out per Retry-After before its
 * next 429 is a `failed` result instead: a 429 uses no attempt, so an endpoint answering 429
 * forever kept the pass asking forever. A pass therefore sends at most this many requests plus
 * one per LLM call left (the calls its last try makes), and waits at most this many times
 * `MAX_RETRY_AFTER_SECONDS` (60 s) for Retry-After.
 */
export const MAX_RATE_LIMITED_WAITS = 10;

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
 * gets a `failed` result with the reason instead. A 429 rejects without using an attempt until
 * the pass has waited out {@link MAX_RATE_LIMITED_WAITS} of them (`rateLimitedWaits`); the next
 * one is a `failed` result whose reason says the endpoint kept answering 429.
 */
export function judgeErrorsToRetry(
  finalAttempt: boolean,
  rateLimitedWaits = 0,
): (error: unknown) => boolean | Error {
  return error => {
    const { action } = classifyFailure(error);
    if (action !== 'rate_limited') return action === 'retry' && !finalAttempt;
    if (rateLimitedWaits < MAX_RATE_LIMITED_WAITS) return true;
    return new SpanscoreError(
      'SS_JUDGE_RATE_LIMITED',
      `the judge endpoint kept answering 429 (rate limited): not asked again after ${rateLimitedWaits} answers of 429 waited out for this trace (MAX_RATE_LIMITED_WAITS); the last: ${(error as Error).message}`,
      { cause: error },
    );
  };
}
