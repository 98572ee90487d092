import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { settledWithin } from './settled-within.js';

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('settledWithin', () => {
  it('says whether the work settled before the time ran out, a rejection included', async () => {
    const late = settledWithin(new Promise(() => {}), 1000);
    await vi.advanceTimersByTimeAsync(1000);
    expect(await late).toBe(false);
    expect(await settledWithin(Promise.reject(new Error('x')), 1000)).toBe(true);
    expect(await settledWithin(undefined, 1000)).toBe(true);
    const soon = settledWithin(new Promise(r => setTimeout(r, 10)), 1000);
    await vi.advanceTimersByTimeAsync(10);
    expect(await soon).toBe(true);
  });
});
