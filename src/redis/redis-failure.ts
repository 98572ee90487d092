import { isSpanscoreError, SpanscoreError } from '../errors/spanscore-error.js';
import { isRedisError } from './is-redis-error.js';

/**
 * A failure of a Redis step on a worker's scoring path (`what`: the step, for the log), as the
 * retry classifier (`classifyFailure`) must see it. A failure of Redis itself (`isRedisError`:
 * an ioredis `ReplyError`, a closed connection) is an `upstream` error (`SS_REDIS_FAILED`), to be
 * retried with backoff like the worker's other Redis failures, with the Redis error as its
 * `cause`: ioredis's own errors the classifier would take for a bug that retrying cannot help.
 * Any other error thrown on the step (a `TypeError` of the step's own code) is a bug, not Redis:
 * `SS_INTERNAL_ERROR`, which fails the job at once rather than retrying it. A spanscore error is
 * returned as it is: it already says whose fault it was.
 */
export function redisFailure(what: string, error: unknown): unknown {
  if (isSpanscoreError(error)) return error;
  if (isRedisError(error))
    return new SpanscoreError('SS_REDIS_FAILED', `Redis, ${what}: ${(error as Error).message}`, {
      cause: error,
    });
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return new SpanscoreError(
    'SS_INTERNAL_ERROR',
    `a bug, not a Redis failure, ${what}: ${text} (the job is not retried)`,
    { cause: error },
  );
}
