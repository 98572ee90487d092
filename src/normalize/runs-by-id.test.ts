import { describe, expect, it } from 'vitest';
import { SCAN_LIMIT } from './few-key-map.js';
import { RunsById } from './runs-by-id.js';
import type { ToolCall } from './tool-call.js';

const run = (callId: string | undefined, name = 'search') => ({ callId, name }) as ToolCall;

describe('RunsById', () => {
  // Scanned up to SCAN_LIMIT runs, a map past it: both must answer alike.
  it.each([3, SCAN_LIMIT + 8])('finds %i runs by their ids as they are now', n => {
    const calls = Array.from({ length: n }, (_, i) => run(i === 1 ? undefined : `id${i}`));
    // A request appended after the runs is never one of them.
    calls.push(run('requested'));
    const runs = new RunsById(calls, n);
    expect(runs.get('id0')).toBe(calls[0]);
    expect(runs.get(`id${n - 1}`)).toBe(calls[n - 1]);
    expect(runs.has('requested')).toBe(false);
    expect(runs.has('taken')).toBe(false);
    // An id-less run paired with a request takes its id (`absorb`), and is found by it.
    calls[1]!.callId = 'taken';
    runs.learn(calls[1]!);
    expect(runs.get('taken')).toBe(calls[1]);
  });

  it.each([2, SCAN_LIMIT + 8])('finds the last of %i runs that share an id', n => {
    const calls = Array.from({ length: n }, (_, i) => run('same', `t${i}`));
    expect(new RunsById(calls, n).get('same')).toBe(calls[n - 1]);
  });
});
