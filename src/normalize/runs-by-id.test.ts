import { describe, expect, it } from 'vitest';
import { SCAN_LIMIT } from './few-key-map.js';
import { RunsById } from './runs-by-id.js';
import type { ToolCall } from './tool-call.js';

const run = (callId: string | undefined, canonicalName = 'search') =>
  ({ callId, canonicalName }) as ToolCall;

describe('RunsById', () => {
  // Scanned up to SCAN_LIMIT runs, a map past it: both must answer alike.
  it.each([3, SCAN_LIMIT + 8])('finds %i runs by their ids as they are now', n => {
    const calls = Array.from({ length: n }, (_, i) => run(i === 1 ? undefined : `id${i}`));
    // A request appended after the runs is never one of them.
    calls.push(run('requested'));
    const runs = new RunsById(calls, n);
    expect(runs.get('id0', 'search')).toBe(calls[0]);
    expect(runs.get(`id${n - 1}`, 'search')).toBe(calls[n - 1]);
    expect(runs.has('requested', 'search')).toBe(false);
    expect(runs.has('taken', 'search')).toBe(false);
    // An id-less run paired with a request takes its id (`absorb`), and is found by it.
    calls[1]!.callId = 'taken';
    runs.learn(calls[1]!);
    expect(runs.get('taken', 'search')).toBe(calls[1]);
  });

  it.each([2, SCAN_LIMIT + 8])('finds the last of %i runs that share an id and tool', n => {
    const calls = Array.from({ length: n }, () => run('same'));
    expect(new RunsById(calls, n).get('same', 'search')).toBe(calls[n - 1]);
  });

  // Ids numbered per response (`call_0` each turn) name other tools' runs in later turns.
  it.each([2, SCAN_LIMIT + 8])('finds a run by its id only for its own tool (%i runs)', n => {
    const calls = Array.from({ length: n }, (_, i) => run('call_0', `t${i}`));
    const runs = new RunsById(calls, n);
    expect(runs.get('call_0', 't0')).toBe(calls[0]);
    expect(runs.get('call_0', `t${n - 1}`)).toBe(calls[n - 1]);
    expect(runs.has('call_0', 'other')).toBe(false);
  });
});
