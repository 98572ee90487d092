/**
 * Whether `value` is a promise, or any thenable `await` would wait on. The scoring loop awaits
 * only those: an await of a plain value (a deterministic scorer's result, a sink that wrote at
 * once) still made a promise and a microtask.
 */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as Partial<PromiseLike<unknown>> | undefined)?.then === 'function';
}
