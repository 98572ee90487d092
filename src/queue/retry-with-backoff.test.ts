import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SpanscoreError } from '../errors/spanscore-error.js';
import { retryWithBackoff } from './retry-with-backoff.js';

beforeEach(() => void vi.useFakeTimers());
afterEach(() => void vi.useRealTimers());

describe('retryWithBackoff: the memory driver counterpart of a BullMQ job’s attempts', () => {
  it('retries upstream failures after 1×, 2×, 4× the backoff and rejects after the last attempt', async () => {
    const at: number[] = [];
    const finals: boolean[] = [];
    const retried: number[] = [];
    const run = retryWithBackoff(
      final => {
        at.push(Date.now());
        finals.push(final);
        return Promise.reject(new SpanscoreError('SS_EXPORT_FAILED', 'down'));
      },
      { attempts: 4, backoffMs: 100, onRetry: (_e, attempt) => retried.push(attempt) },
    );
    const outcome = expect(run).rejects.toMatchObject({ code: 'SS_EXPORT_FAILED' });
    await vi.advanceTimersByTimeAsync(1000);
    await outcome;
    expect(at.map(t => t - at[0]!)).toEqual([0, 100, 300, 700]);
    expect(finals).toEqual([false, false, false, true]);
    expect(retried).toEqual([1, 2, 3]);
  });

  it('does not retry what cannot succeed', async () => {
    let calls = 0;
    await expect(
      retryWithBackoff(() => (calls++, Promise.reject(new TypeError('a bug'))), {
        attempts: 5,
        backoffMs: 10,
      }),
    ).rejects.toThrow('a bug');
    expect(calls).toBe(1);
  });

  it('waits out a 429 for its Retry-After without using an attempt', async () => {
    const at: number[] = [];
    const run = retryWithBackoff(
      () => {
        at.push(Date.now());
        return at.length <= 3
          ? Promise.reject(
              new SpanscoreError('SS_JUDGE_RATE_LIMITED', '429', { retryAfterSeconds: 1 }),
            )
          : Promise.resolve('answered');
      },
      { attempts: 1, backoffMs: 10 },
    );
    await vi.advanceTimersByTimeAsync(3000);
    await expect(run).resolves.toBe('answered');
    expect(at.map(t => t - at[0]!)).toEqual([0, 1000, 2000, 3000]);
  });
});

describe('retryWithBackoff with a slot', () => {
  it('runs each attempt in the slot and waits between attempts outside it', async () => {
    let inSlot = 0;
    const trace: string[] = [];
    const slot = async <T>(attempt: () => Promise<T>): Promise<T> => {
      inSlot++;
      trace.push(`enter@${Date.now()}`);
      try {
        return await attempt();
      } finally {
        inSlot--;
        trace.push(`leave@${Date.now()}`);
      }
    };
    let calls = 0;
    const run = retryWithBackoff(
      () => {
        expect(inSlot).toBe(1);
        return ++calls < 3
          ? Promise.reject(new SpanscoreError('SS_EXPORT_FAILED', 'down'))
          : Promise.resolve('written');
      },
      { attempts: 5, backoffMs: 100, slot },
    );
    await vi.advanceTimersByTimeAsync(1000);
    await expect(run).resolves.toBe('written');
    const start = Number(trace[0]!.split('@')[1]);
    expect(
      trace.map(t => t.replace(/@(\d+)/, (_, at: string) => `@${Number(at) - start}`)),
    ).toEqual(['enter@0', 'leave@0', 'enter@100', 'leave@100', 'enter@300', 'leave@300']);
  });
});
