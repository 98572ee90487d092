import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { WaitingRequests } from './waiting-requests.js';

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

/** Waits for `spans` and records how the wait ended, by name, in `ends`. */
function waitAs(
  room: WaitingRequests,
  name: string,
  spans: number,
  ends: string[],
  signal?: AbortSignal,
): Promise<void> {
  return room
    .wait(spans, 0, () => new Error(`${name} timed out`), signal)
    .then(
      () => void ends.push(`${name} in`),
      (error: Error) => void ends.push(error.message),
    );
}

/**
 * A door of 100 spans and 1,000 bytes with waits of a second, and the spans still waiting each
 * time `onTimeout` is called (a wait ran out or its sender left), in `seen`.
 */
function roomSeeingTimeouts(): { room: WaitingRequests; seen: number[] } {
  const seen: number[] = [];
  const room: WaitingRequests = new WaitingRequests({
    maxWaitMs: 1000,
    maxSpans: 100,
    maxBytes: 1000,
    onTimeout: () => seen.push(room.waitingSpans),
  });
  return { room, seen };
}

describe('WaitingRequests', () => {
  it('lets requests in in arrival order while the first fits; a large one holds back those behind it', async () => {
    const room = new WaitingRequests({ maxWaitMs: 1000, maxSpans: 100, maxBytes: 1000 });
    const ends: string[] = [];
    const all = [
      waitAs(room, 'a', 10, ends),
      waitAs(room, 'b', 50, ends),
      waitAs(room, 'c', 5, ends),
    ];
    expect(room.size).toBe(3);
    expect(room.waitingSpans).toBe(65);
    // 30 spans of room: a (10) fits, b (50) does not, and c (5) stays behind b.
    expect(room.admit(30)).toBe(10);
    expect(room.admit(49)).toBe(0);
    expect(room.admit(55)).toBe(55);
    await Promise.all(all);
    expect(ends).toEqual(['a in', 'b in', 'c in']);
    expect(room.size).toBe(0);
    expect(room.waitingSpans).toBe(0);
  });

  it('holds at most maxSpans spans (a larger request alone) and maxBytes bytes, and nothing when maxWaitMs is 0', () => {
    const room = new WaitingRequests({ maxWaitMs: 1000, maxSpans: 100, maxBytes: 1000 });
    // Alone, a request past maxSpans may wait; never one past maxBytes.
    expect(room.canWait(500, 1000)).toBe(true);
    expect(room.canWait(1, 1001)).toBe(false);
    void room.wait(60, 600, () => new Error('timed out')).catch(() => undefined);
    expect(room.canWait(40, 400)).toBe(true);
    expect(room.canWait(41, 0)).toBe(false);
    expect(room.canWait(1, 401)).toBe(false);
    expect(new WaitingRequests({ maxWaitMs: 0, maxSpans: 100, maxBytes: 1000 }).canWait(1, 0)).toBe(
      false,
    );
  });

  it('ends a wait after maxWaitMs with the caller’s error, says so once its spans left the count, and lets the others in after it', async () => {
    const { room, seen } = roomSeeingTimeouts();
    const ends: string[] = [];
    const a = waitAs(room, 'a', 10, ends);
    await vi.advanceTimersByTimeAsync(600);
    const b = waitAs(room, 'b', 5, ends);
    await vi.advanceTimersByTimeAsync(400);
    await a;
    expect(ends).toEqual(['a timed out']);
    expect(seen).toEqual([5]);
    expect(room.waitingSpans).toBe(5);
    expect(room.admit(10)).toBe(5);
    await b;
    expect(ends).toEqual(['a timed out', 'b in']);
    // b's timer was cleared when it was let in: nothing fires later.
    await vi.advanceTimersByTimeAsync(5000);
    expect(ends).toHaveLength(2);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('refuses every waiting request at shutdown, and lets none wait after', async () => {
    const room = new WaitingRequests({ maxWaitMs: 1000, maxSpans: 100, maxBytes: 1000 });
    const ends: string[] = [];
    const all = [waitAs(room, 'a', 10, ends), waitAs(room, 'b', 10, ends)];
    room.refuseAll(new Error('shutting down'));
    await Promise.all(all);
    expect(ends).toEqual(['shutting down', 'shutting down']);
    expect(room.size).toBe(0);
    expect(room.canWait(1, 0)).toBe(false);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('holds no more entries than twice those waiting while 20,000 one-span waits time out (hostile: tiny requests)', async () => {
    // Real timers: the fake clock's cost grows with the timers it holds (thousands here).
    vi.useRealTimers();
    const room = new WaitingRequests({ maxWaitMs: 40, maxSpans: 1_000_000, maxBytes: 1000 });
    const ends: string[] = [];
    const all: Array<Promise<void>> = [];
    let worst = 0;
    // 1,000 requests every 10 ms or so, none let in: each times out 40 ms after it came.
    for (let round = 0; round < 20; round++) {
      for (let i = 0; i < 1000; i++) all.push(waitAs(room, `r${round}.${i}`, 1, ends));
      worst = Math.max(worst, room.queuedEntries - 2 * room.size);
      await new Promise(resolve => setTimeout(resolve, 10));
      worst = Math.max(worst, room.queuedEntries - 2 * room.size);
    }
    await Promise.all(all);
    expect(ends).toHaveLength(20_000);
    expect(ends.every(e => e.endsWith('timed out'))).toBe(true);
    expect(worst).toBeLessThanOrEqual(33);
    expect(room.queuedEntries).toBe(0);
    expect(room.waitingSpans).toBe(0);
  });

  it('lets a request go when its sender leaves, wherever it waits: its room goes to the next, and no listener stays', async () => {
    const { room, seen } = roomSeeingTimeouts();
    const ends: string[] = [];
    const senders = ['a', 'b', 'c'].map(() => new AbortController());
    const listening = senders.map(() => 0);
    senders.forEach((s, i) => {
      const add = s.signal.addEventListener.bind(s.signal);
      const remove = s.signal.removeEventListener.bind(s.signal);
      s.signal.addEventListener = (...args: Parameters<typeof add>) => {
        listening[i]!++;
        add(...args);
      };
      s.signal.removeEventListener = (...args: Parameters<typeof remove>) => {
        listening[i]!--;
        remove(...args);
      };
    });
    const all = [
      waitAs(room, 'a', 10, ends, senders[0]!.signal),
      waitAs(room, 'b', 50, ends, senders[1]!.signal),
      waitAs(room, 'c', 5, ends, senders[2]!.signal),
    ];
    expect(listening).toEqual([1, 1, 1]);
    // b, in the middle, leaves: its 50 spans no longer wait, and c no longer waits behind it.
    senders[1]!.abort(new Error('b left'));
    await Promise.resolve();
    expect(seen).toEqual([15]);
    expect(room.size).toBe(2);
    expect(room.admit(15)).toBe(15);
    await Promise.all(all);
    expect(ends).toEqual(['b left', 'a in', 'c in']);
    // Every listener removed; an abort after the request was let in changes nothing.
    expect(listening).toEqual([0, 0, 0]);
    senders[0]!.abort(new Error('a left late'));
    expect(ends).toHaveLength(3);
    expect(room.waitingSpans).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
    // A sender already gone does not wait at all.
    await expect(
      room.wait(1, 0, () => new Error('x'), AbortSignal.abort(new Error('gone'))),
    ).rejects.toThrow('gone');
    expect(room.size).toBe(0);
  });

  it('holds no more entries than twice those waiting while 20,000 senders leave out of order (hostile: abandoned requests)', () => {
    vi.useRealTimers(); // the fake clock's cost grows with the timers it holds
    const room = new WaitingRequests({ maxWaitMs: 60_000, maxSpans: 1_000_000, maxBytes: 1000 });
    const ends: string[] = [];
    // One request that never leaves heads the queue, so no entry behind it is ever at the front:
    // only the sweep that drops ended entries wherever they are keeps the array small.
    void waitAs(room, 'first', 1, ends);
    let worst = 0;
    const senders: AbortController[] = [];
    for (let i = 0; i < 20_000; i++) {
      const sender = new AbortController();
      senders.push(sender);
      void waitAs(room, `r${i}`, 1, ends, sender.signal);
      // Every other request's sender leaves at once, the rest a while later, in reverse.
      if (i % 2 === 0) sender.abort(new Error('left'));
      worst = Math.max(worst, room.queuedEntries - 2 * room.size);
    }
    for (let i = senders.length - 1; i >= 0; i--) {
      senders[i]!.abort(new Error('left'));
      worst = Math.max(worst, room.queuedEntries - 2 * room.size);
    }
    expect(room.size).toBe(1);
    expect(worst).toBeLessThanOrEqual(32);
    expect(room.queuedEntries).toBeLessThanOrEqual(2 + 32);
    room.refuseAll(new Error('shutting down'));
  });
});
