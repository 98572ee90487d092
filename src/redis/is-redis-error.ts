/**
 * The errors JavaScript itself throws for a mistake in the code that runs (a property of
 * `undefined`, a bad array length, an unknown name): a bug of the caller, which retrying cannot
 * cure. ioredis rejects with none of them.
 */
const PROGRAMMING_ERRORS = [
  TypeError,
  RangeError,
  ReferenceError,
  SyntaxError,
  EvalError,
  URIError,
];

/**
 * True when `error`, thrown on a Redis step, is to be taken for a failure of Redis or of the
 * connection to it, which retrying may cure: every `Error` but a programming error (a
 * `TypeError`, a `RangeError`, … of the step's own code), and a thrown non-`Error` is not one either.
 * The default is Redis because ioredis rejects with plain `Error`s of many messages that no list
 * keeps up with (on a cluster: "Cluster isn't ready and enableOfflineQueue options is false",
 * "Too many Cluster redirections", "Cluster is disconnected.", "Node is disconnected" while a
 * replica takes over; on one server: "Connection is closed.", "Stream isn't writeable"), besides
 * its own `ReplyError`s and socket errors: taking one of those for a bug would fail the job for
 * good during an ordinary failover.
 */
export function isRedisError(error: unknown): boolean {
  return error instanceof Error && !PROGRAMMING_ERRORS.some(kind => error instanceof kind);
}
