import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SpanscoreError } from '../errors/spanscore-error.js';
import { ScoringQueue, type ScoringQueueOptions } from './scoring-queue.js';

// The memory driver's scoring slots. Through the assembler (readiness, deliveries, shutdown):
// memory-trace-assembler.*.test.ts.

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

// Taken before the fake timers, as the queue's own gate takes it.
const realSetImmediate = setImmediate;

/**
 * Advances the fake clock by `ms`, then lets the real event loop turn once. The queue's gate
 * yields to the real loop once its work has run 10 real ms without a turn: after a host stall
 * that long (a collection, a loaded CI machine), a freed slot's next attempt waits on a real
 * `setImmediate` queued after the one the fake clock's advance turns the loop with, so the
 * advance resolved first and the test looked too early. A 15 ms stall before a slot is freed
 * failed the first test every time without the turn. One turn is enough here because every
 * attempt stays under way until the test ends it: no attempt ends, and gates the next, within
 * the turn.
 */
async function advance(ms: number): Promise<void> {
  await vi.advanceTimersByTimeAsync(ms);
  await new Promise(resolve => realSetImmediate(resolve));
}

const OPTIONS: ScoringQueueOptions = {
  concurrency: 2,
  maxAttempts: 3,
  backoffMs: 100,
  maxWaitingDeliveries: 10,
  deliveryGraceMs: 1000,
};

/** A trace's attempt that waits until the test ends it, recording when each started. */
function held(started: string[], endings: Map<string, (error?: Error) => void>) {
  return (id: string) => () => {
    started.push(id);
    return new Promise<void>((resolve, reject) =>
      endings.set(id, error => (error === undefined ? resolve() : reject(error))),
    );
  };
}

describe('scoring queue: slots', () => {
  it('scores at most `concurrency` traces at once, a freed slot going to the oldest waiter, a retry included', async () => {
    const started: string[] = [];
    const endings = new Map<string, (error?: Error) => void>();
    const attempt = held(started, endings);
    const queue = new ScoringQueue(OPTIONS);
    const done: string[] = [];
    for (const id of ['a', 'b', 'c', 'd']) queue.submit(id, attempt(id), () => done.push(id));
    await advance(1);
    expect(started).toEqual(['a', 'b']);
    expect(queue.scoring).toBe(4);

    // a fails (retryable): its slot goes to c at once; its retry waits behind d after the backoff.
    endings.get('a')!(new SpanscoreError('SS_EXPORT_FAILED', 'backend down'));
    await advance(1);
    expect(started).toEqual(['a', 'b', 'c']);
    await advance(99);
    expect(started).toEqual(['a', 'b', 'c']);
    endings.get('b')!();
    await advance(1);
    expect(started).toEqual(['a', 'b', 'c', 'd']);
    expect(done).toEqual(['b']);
    endings.get('c')!();
    await advance(1);
    expect(started).toEqual(['a', 'b', 'c', 'd', 'a']);
    endings.get('a')!();
    endings.get('d')!();
    await advance(1);
    expect(done.sort()).toEqual(['a', 'b', 'c', 'd']);
    expect(queue.counters).toEqual({ scored: 4, failed: 0, retries: 1 });
    expect(queue.scoring).toBe(0);
    expect(await queue.close(1000)).toEqual({ unfinished: 0 });
  });

  it('close() waits for scoring under way, and counts what had not finished by the deadline', async () => {
    const started: string[] = [];
    const endings = new Map<string, (error?: Error) => void>();
    const attempt = held(started, endings);
    const queue = new ScoringQueue(OPTIONS);
    for (const id of ['a', 'b', 'c']) queue.submit(id, attempt(id), () => undefined);
    await advance(1);
    const closing = queue.close(500);
    endings.get('a')!();
    await advance(1);
    expect(started).toEqual(['a', 'b', 'c']);
    await advance(500); // the deadline: what it leaves for deliveries is 0
    await advance(1);
    expect(await closing).toEqual({ unfinished: 2 });
    expect(queue.counters.scored).toBe(1);
  });
});
