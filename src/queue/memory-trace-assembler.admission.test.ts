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

  it('lets the next request in when the first’s wait runs out and the next fits', async () => {
    const { assembler } = recordingAssembler({
      maxBufferedSpans: 20,
      admissionWaitMs: 1000,
      process: () => new Promise(() => {}),
    });
    await assembler.accept(childSpans(1, ['root', ...'abcdefghijklmnop'])); // 17 held
    const ends: string[] = [];
    const big = track(ends, 'big', assembler.accept(childSpans(2, ['root', 'a', 'b', 'c'])));
    await vi.advanceTimersByTimeAsync(500);
    const small = track(ends, 'small', assembler.accept(childSpans(3, ['root'])));
    await vi.advanceTimersByTimeAsync(500);
    await Promise.all([big, small]);
    // The 4-span request's wait ran out; the 1-span one behind it fit all along.
    expect(ends).toEqual(['big SS_INGEST_SATURATED', 'small accepted']);
    expect(assembler.stats()).toMatchObject({ heldSpans: 18, reservedSpans: 0 });
  });

  it('lets no request overtake those waiting: with the door full, one that would fit is refused', async () => {
    const { assembler } = recordingAssembler({
      maxBufferedSpans: 12,
      admissionWaitMs: 1000,
      process: () => new Promise(() => {}),
    });
    await assembler.accept(childSpans(1, ['root', ...'abcdefgh'])); // 9 held, 3 free
    const ends: string[] = [];
    // 4 spans do not fit: they wait, and fill the door (a quarter of 12: 3 spans, or one alone).
    const first = track(ends, 'first', assembler.accept(childSpans(2, ['root', 'a', 'b', 'c'])));
    await track(ends, 'second', assembler.accept(childSpans(3, ['root'])));
    expect(ends).toEqual(['second SS_INGEST_SATURATED']);
    await vi.advanceTimersByTimeAsync(1000);
    await first;
    expect(assembler.stats()).toMatchObject({ heldSpans: 9, waitingRequests: 0, reservedSpans: 0 });
  });

  it('counts a service’s waiting spans in its share of the buffer', async () => {
    const { assembler } = recordingAssembler({
      maxBufferedSpans: 40,
      maxServiceShare: 0.6, // 24 spans
      admissionWaitMs: 1000,
      process: () => new Promise(() => {}),
    });
    const from = (service: string, t: number, n: number) =>
      childSpans(t, ['root', ...Array.from({ length: n - 1 }, (_, i) => `s${i}`)]).map(span =>
        Object.assign(span, { serviceName: service }),
      );
    await assembler.accept(from('small', 1, 1));
    await assembler.accept(from('big', 2, 18));
    await assembler.accept(from('small', 3, 20)); // big 18, small 21: 39 of 40 held
    const ends: string[] = [];
    // 2 spans do not fit: big waits with them (20 of its 24)...
    const waits = track(ends, 'big 2', assembler.accept(from('big', 4, 2)));
    expect(assembler.stats().waitingSpans).toBe(2);
    // ...and 5 more would be 25 with them (23 held alone: a share that left them out let it wait).
    await track(ends, 'big 5', assembler.accept(from('big', 5, 5)));
    expect(ends).toEqual(['big 5 SS_INGEST_SATURATED']);
    expect(assembler.stats().waitingSpans).toBe(2);
    await vi.advanceTimersByTimeAsync(1000);
    await waits;
  });

  it('refuses the waiting requests (503) when the service starts closing, and holds none after', async () => {
    const { assembler } = recordingAssembler({
      maxBufferedSpans: 8,
      admissionWaitMs: 5000,
      process: () => new Promise(() => {}),
    });
    await assembler.accept(childSpans(1, ['root', ...'abcdefg']));
    const ends: string[] = [];
    const waiting = track(ends, 'waiting', assembler.accept(childSpans(2, ['root'])));
    assembler.stopWaiting();
    await waiting;
    await track(ends, 'later', assembler.accept(childSpans(3, ['root'])));
    expect(ends).toEqual(['waiting SS_INGEST_UNAVAILABLE', 'later SS_INGEST_SATURATED']);
    expect(assembler.refusesNow()).toMatchObject({ code: 'SS_INGEST_SATURATED' });
  });

  it('lets a request larger than the door’s quarter wait when it is alone', async () => {
    const { assembler, processed } = recordingAssembler({
      maxBufferedSpans: 8,
      admissionWaitMs: 5000,
    });
    await assembler.accept(childSpans(1, ['root', ...'abcde'])); // 6 of 8
    const ends: string[] = [];
    // 5 spans: past the door's 2, but alone it waits; a second request may not wait beside it.
    const big = track(ends, 'big', assembler.accept(childSpans(2, ['root', ...'abcd'])));
    await track(ends, 'next', assembler.accept(childSpans(3, ['root'])));
    await vi.advanceTimersByTimeAsync(2000);
    await big;
    expect(ends).toEqual(['next SS_INGEST_SATURATED', 'big accepted']);
    await vi.advanceTimersByTimeAsync(2000);
    expect(processed.map(p => p.traceId)).toEqual([traceId(1), traceId(2)]);
    expect(assembler.stats()).toMatchObject({ heldSpans: 0, reservedSpans: 0 });
  });
});
