import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { childSpans } from '../../test/helpers/child-spans.js';
import { recordingAssembler } from '../../test/helpers/memory-assembler.js';
import { traceId } from '../../test/helpers/otlp-json-builder.js';

// A request that finds the span buffer full waits at the door (`assembly.admissionWaitMs`) for
// room, in arrival order, instead of being refused at once: an exporter told 429 waits a whole
// Retry-After second, and under steady overload every sender did so at once, the service idle.

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

/** How a request's accept ended, by name, in order. */
function track(ends: string[], name: string, accepted: Promise<unknown>): Promise<void> {
  return accepted.then(
    () => void ends.push(`${name} accepted`),
    (error: { code: string; message: string }) => void ends.push(`${name} ${error.code}`),
  );
}

describe('memory trace assembler: waiting for room', () => {
  it('holds a request while the buffer is full and takes it, not a later one, once a trace is scored', async () => {
    // A quarter of 12 (3 spans) may wait.
    const { assembler, processed } = recordingAssembler({
      maxBufferedSpans: 12,
      admissionWaitMs: 5000,
    });
    const eleven = ['root', ...'abcdefghij'];
    await assembler.accept(childSpans(1, eleven));
    const ends: string[] = [];
    const second = track(ends, 'second', assembler.accept(childSpans(2, ['root', 'c'])));
    const third = track(ends, 'third', assembler.accept(childSpans(3, ['root'])));
    // Nothing refused before it is decoded: there is room at the door.
    expect(assembler.refusesNow()).toBeUndefined();
    await vi.advanceTimersByTimeAsync(10);
    expect(ends).toEqual([]);
    // The third (1 span) would fit, but waits behind the second (2 spans).
    expect(assembler.stats()).toMatchObject({
      heldSpans: 11,
      waitingRequests: 2,
      waitingSpans: 3,
    });
    // Trace 1 is scored 2 s after its spans (settleMs): its 11 spans make room for both.
    await vi.advanceTimersByTimeAsync(2000);
    await Promise.all([second, third]);
    expect(ends).toEqual(['second accepted', 'third accepted']);
    expect(assembler.stats()).toMatchObject({ heldSpans: 3, waitingRequests: 0, waitingSpans: 0 });
    await vi.advanceTimersByTimeAsync(2000);
    expect(processed.map(p => p.traceId)).toEqual([traceId(1), traceId(2), traceId(3)]);
  });

  it('refuses (429) a request that waited admissionWaitMs without room, saying how long it waited', async () => {
    const { assembler } = recordingAssembler({
      maxBufferedSpans: 2,
      admissionWaitMs: 1000,
      // Scoring never ends: the buffer stays full.
      process: () => new Promise(() => {}),
    });
    await assembler.accept(childSpans(1, ['root', 'a']));
    const waited = assembler.accept(childSpans(2, ['root']));
    const seen = waited.catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(999);
    expect(assembler.stats().waitingRequests).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(await seen).toMatchObject({
      code: 'SS_INGEST_SATURATED',
      retryAfterSeconds: 1,
      message: 'the span buffer holds 2 of at most 2 spans after waiting 1000 ms for room',
    });
    expect(assembler.stats()).toMatchObject({ heldSpans: 2, waitingRequests: 0, waitingSpans: 0 });
  });

  it('refuses at once when a quarter of maxBufferedSpans already waits, before decoding too', async () => {
    const { assembler } = recordingAssembler({
      maxBufferedSpans: 8,
      admissionWaitMs: 1000,
      process: () => new Promise(() => {}),
    });
    await assembler.accept(childSpans(1, ['root', 'a', 'b', 'c', 'd', 'e', 'f', 'g']));
    const ends: string[] = [];
    // A quarter of 8: 2 spans may wait.
    const first = track(ends, 'first', assembler.accept(childSpans(2, ['root', 'a'])));
    expect(assembler.refusesNow()).toMatchObject({ code: 'SS_INGEST_SATURATED' });
    await track(ends, 'second', assembler.accept(childSpans(3, ['root'])));
    expect(ends).toEqual(['second SS_INGEST_SATURATED']);
    await vi.advanceTimersByTimeAsync(1000);
    await first;
    expect(ends).toEqual(['second SS_INGEST_SATURATED', 'first SS_INGEST_SATURATED']);
  });

  it('refuses the waiting requests with 503 at shutdown, and keeps every span it accepted', async () => {
    const { assembler, processed } = recordingAssembler({
      maxBufferedSpans: 2,
      admissionWaitMs: 5000,
    });
    await assembler.accept(childSpans(1, ['root', 'a']));
    const ends: string[] = [];
    const waiting = track(ends, 'waiting', assembler.accept(childSpans(2, ['root'])));
    const closed = assembler.close(1000);
    await waiting;
    expect(ends).toEqual(['waiting SS_INGEST_UNAVAILABLE']);
    await vi.advanceTimersByTimeAsync(10);
    expect(await closed).toEqual({ unfinished: 0 });
    expect(processed.map(p => p.traceId)).toEqual([traceId(1)]);
  });

  it('refuses at once with admissionWaitMs 0', async () => {
    const { assembler } = recordingAssembler({ maxBufferedSpans: 2, admissionWaitMs: 0 });
    await assembler.accept(childSpans(1, ['root', 'a']));
    expect(assembler.refusesNow()).toMatchObject({ code: 'SS_INGEST_SATURATED' });
    await expect(assembler.accept(childSpans(2, ['root']))).rejects.toMatchObject({
      code: 'SS_INGEST_SATURATED',
      message: 'the span buffer holds 2 of at most 2 spans',
    });
  });
});
