import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SpanscoreError } from '../errors/spanscore-error.js';
import { ScoringQueue, type ScoringQueueOptions } from './scoring-queue.js';

// The memory driver's scoring slots. Through the assembler (readiness, deliveries, shutdown):
// memory-trace-assembler.*.test.ts.

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

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
    await vi.advanceTimersByTimeAsync(1);
    expect(started).toEqual(['a', 'b']);
    expect(queue.scoring).toBe(4);

    // a fails (retryable): its slot goes to c at once; its retry waits behind d after the backoff.
    endings.get('a')!(new SpanscoreError('SS_EXPORT_FAILED', 'backend down'));
    await vi.advanceTimersByTimeAsync(1);
    expect(started).toEqual(['a', 'b', 'c']);
    await vi.advanceTimersByTimeAsync(99);
    expect(started).toEqual(['a', 'b', 'c']);
    endings.get('b')!();
    await vi.advanceTimersByTimeAsync(1);
    expect(started).toEqual(['a', 'b', 'c', 'd']);
    expect(done).toEqual(['b']);
    endings.get('c')!();
    await vi.advanceTimersByTimeAsync(1);
    expect(started).toEqual(['a', 'b', 'c', 'd', 'a']);
    endings.get('a')!();
    endings.get('d')!();
    await vi.advanceTimersByTimeAsync(1);
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
    await vi.advanceTimersByTimeAsync(1);
    const closing = queue.close(500);
    endings.get('a')!();
    await vi.advanceTimersByTimeAsync(1);
    expect(started).toEqual(['a', 'b', 'c']);
    await vi.advanceTimersByTimeAsync(500); // the deadline: what it leaves for deliveries is 0
    await vi.advanceTimersByTimeAsync(1);
    expect(await closing).toEqual({ unfinished: 2 });
    expect(queue.counters.scored).toBe(1);
  });
});
