import { describe, expect, it } from 'vitest';
import type { SpanDigest } from '../ingest/span-digest.js';
import type { ToolResultSeen } from './extractors/extractor.js';
import { FedBackResults } from './fed-back-results.js';
import type { ToolCall } from './tool-call.js';

/** A model span placed at `at` (only its start is read). */
const span = (at: number): SpanDigest => ({ startTimeUnixNano: BigInt(at) }) as SpanDigest;
/** A call nothing answered yet, placed at `at`. */
const call = (callId: string | undefined, at: number): ToolCall =>
  ({
    name: 'tool',
    callId,
    startTimeUnixNano: BigInt(at),
    outcome: 'ok',
    source: 'requested',
  }) as ToolCall;
const fed = (callId: string, result: unknown, isError = false): ToolResultSeen => ({
  callId,
  result,
  isError,
});

describe('FedBackResults', () => {
  it('gives each call of an id of its own the first result seen with it', () => {
    const a = call('a', 10);
    const b = call('b', 30);
    const none = call(undefined, 40);
    const results = new FedBackResults();
    results.add(span(20), [fed('a', 'A')]);
    results.add(span(50), [fed('a', 'A again'), fed('b', 'B', true)]);
    results.apply([a, b, none]);
    expect([a.result, b.result, none.result]).toEqual(['A', 'B', undefined]);
    expect(b.outcome).toBe('error');
    expect(b.error).toBe('the tool result was marked as an error');
  });

  it('matches calls that share an id by position: each span’s last result answers the latest call before it', () => {
    // call_0 every turn: the second span's input replays the first result, then gives the second.
    const first = call('call_0', 10);
    const second = call('call_0', 30);
    const results = new FedBackResults();
    results.add(span(20), [fed('call_0', 'first')]);
    results.add(span(40), [fed('call_0', 'first'), fed('call_0', 'second')]);
    results.apply([first, second]);
    expect([first.result, second.result]).toEqual(['first', 'second']);
  });

  it('leaves an earlier turn’s result, replayed in the input, to no call of this trace', () => {
    // First-seen-wins gave this trace's only call_0 the replayed result of the turn before.
    const only = call('call_0', 10);
    const results = new FedBackResults();
    results.add(span(20), [fed('call_0', 'last turn'), fed('call_0', 'this turn')]);
    results.apply([only]);
    expect(only.result).toBe('this turn');
  });

  it('gives a call none of the results of a request that started before it was asked for', () => {
    // Turn 2 of call_0-every-turn: its first request (10–20) replays turn 1's result and asks for
    // call_0, placed at the request's end; the next request (30) gives the answer. Read in export
    // order, the first request's replay was matched to the call.
    const only = call('call_0', 20);
    const results = new FedBackResults();
    results.add(span(10), [fed('call_0', 'turn 1')]);
    results.add(span(30), [fed('call_0', 'turn 1'), fed('call_0', 'turn 2')]);
    results.apply([only]);
    expect(only.result).toBe('turn 2');
  });

  it('keeps a result a call already has, and its position', () => {
    const ran = call('call_0', 10);
    ran.result = 'from its tool span';
    const later = call('call_0', 30);
    const results = new FedBackResults();
    results.add(span(40), [fed('call_0', 'fed back 1'), fed('call_0', 'fed back 2')]);
    results.apply([ran, later]);
    expect([ran.result, later.result]).toEqual(['from its tool span', 'fed back 2']);
  });

  it('matches 5,000 calls of one id over 5,000 spans with a search per span, not a scan', () => {
    // Each read of a call's place counted: sorting the calls and a binary search a span read
    // about 120,000; a scan of the calls before each span would read 12.5 million.
    let reads = 0;
    const calls: ToolCall[] = [];
    for (let i = 0; i < 5_000; i++) {
      const c = call('call_0', 0);
      Object.defineProperty(c, 'startTimeUnixNano', {
        get: () => {
          reads++;
          return BigInt(2 * i);
        },
      });
      calls.push(c);
    }
    const results = new FedBackResults();
    for (let i = 0; i < 5_000; i++) results.add(span(2 * i + 1), [fed('call_0', i)]);
    results.apply(calls);
    expect(calls.every((c, i) => c.result === i)).toBe(true);
    expect(reads).toBeLessThan(300_000);
  });
});
