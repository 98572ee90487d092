/** Tool calls in start order: the comparator and sorts extraction shares (extract-tool-calls.ts). */

/** Something placed in time: a tool call, or a model's request (`RequestedCall`). */
export interface Started {
  readonly startTimeUnixNano: bigint;
}

/** Calls in start order: which comes first (`Array.prototype.sort`'s comparator). */
export function byStart(a: Started, b: Started): number {
  return a.startTimeUnixNano < b.startTimeUnixNano
    ? -1
    : a.startTimeUnixNano > b.startTimeUnixNano
      ? 1
      : 0;
}

/** Whether `calls` (or requests) are in start order already. */
export function isSorted(calls: readonly Started[]): boolean {
  for (let i = 1; i < calls.length; i++) if (byStart(calls[i - 1]!, calls[i]!) > 0) return false;
  return true;
}

/**
 * The requests in start order, stably: a short list sorted in place by insertion (the caller's
 * own list, which it does not read again), a long one copied and sorted.
 */
export function sortRequests<T extends Started>(requested: T[]): T[] {
  if (requested.length > 32) return [...requested].sort(byStart);
  for (let i = 1; i < requested.length; i++) {
    const item = requested[i]!;
    let j = i - 1;
    for (; j >= 0 && byStart(requested[j]!, item) > 0; j--) requested[j + 1] = requested[j]!;
    requested[j + 1] = item;
  }
  return requested;
}
