import { ReplyError } from 'ioredis';

/**
 * The base class of ioredis's own errors (`redis-errors`' `RedisError`: `ReplyError`,
 * `AbortError`, `MaxRetriesPerRequestError`, `ParserError`), reached through `ReplyError`, which
 * ioredis exports.
 */
const RedisError = Object.getPrototypeOf(ReplyError) as new (...args: never[]) => object;

/** What ioredis rejects with, as plain `Error`s, when the connection is not there. */
const CONNECTION_MESSAGES = [
  'Connection is closed.',
  "Stream isn't writeable",
  'Command timed out',
  'connect ETIMEDOUT',
  'None of startup nodes is available',
  'Failed to refresh slots cache',
];

/**
 * True when `error` is a failure of Redis or of the connection to it, which retrying may cure: an
 * ioredis error (a reply error such as WRONGTYPE or OOM, an aborted or retried-out command), a
 * socket error (one with a `syscall`, such as ECONNREFUSED), or ioredis's closed, unwritable or
 * timed-out connection. Anything else (a `TypeError`, a `RangeError`: a bug in the caller) is not.
 */
export function isRedisError(error: unknown): boolean {
  if (error instanceof RedisError) return true;
  if (!(error instanceof Error)) return false;
  if (typeof (error as { syscall?: unknown }).syscall === 'string') return true;
  return CONNECTION_MESSAGES.some(m => error.message.startsWith(m));
}
