import { isSpanscoreError, SpanscoreError } from '../errors/spanscore-error.js';

/**
 * A failure of a Redis step on a worker's scoring path (`what`: the step, for the log), as the
 * retry classifier (`classifyFailure`) must see it: an `upstream` error (`SS_REDIS_FAILED`), to
 * be retried with backoff like the worker's other Redis failures, with the Redis error as its
 * `cause`. ioredis rejects with its own errors (a `ReplyError`, a closed connection), which the
 * classifier would take for a bug that retrying cannot help. A spanscore error is returned as it
 * is: it already says whose fault it was.
 */
export function redisFailure(what: string, error: unknown): unknown {
  if (isSpanscoreError(error)) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new SpanscoreError('SS_REDIS_FAILED', `Redis, ${what}: ${message}`, { cause: error });
}
