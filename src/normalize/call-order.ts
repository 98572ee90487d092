/** Tool calls in start order: the comparator and sorts extraction shares (extract-tool-calls.ts). */
import type { ToolCall } from './tool-call.js';

/** Calls in start order: which comes first (`Array.prototype.sort`'s comparator). */
export function byStart(a: ToolCall, b: ToolCall): number {
  return a.startTimeUnixNano < b.startTimeUnixNano
    ? -1
    : a.startTimeUnixNano > b.startTimeUnixNano
      ? 1
      : 0;
}

/** Whether `calls` are in start order already. */
export function isSorted(calls: readonly ToolCall[]): boolean {
  for (let i = 1; i < calls.length; i++) if (byStart(calls[i - 1]!, calls[i]!) > 0) return false;
  return true;
}

/** Whether the requests are in their calls' start order already. */
export function requestsSorted(requested: ReadonlyArray<{ call: ToolCall }>): boolean {
  for (let i = 1; i < requested.length; i++)
    if (byStart(requested[i - 1]!.call, requested[i]!.call) > 0) return false;
  return true;
}

/**
 * The requests in start order, stably: a short list sorted in place by insertion (the caller's
 * own list, which it does not read again), a long one copied and sorted.
 */
export function sortRequests<T extends { call: ToolCall }>(requested: T[]): T[] {
  if (requested.length > 32) return [...requested].sort((a, b) => byStart(a.call, b.call));
  for (let i = 1; i < requested.length; i++) {
    const item = requested[i]!;
    let j = i - 1;
    for (; j >= 0 && byStart(requested[j]!.call, item.call) > 0; j--)
      requested[j + 1] = requested[j]!;
    requested[j + 1] = item;
  }
  return requested;
}
