import { context, trace } from '@opentelemetry/api';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { recordingProvider } from '../../test/helpers/sdk-spans.js';
import { decodeOtlpProtobuf } from '../ingest/decode-otlp-protobuf.js';
import { WireSpanDigest } from '../ingest/wire-span-digest.js';
import { SpanscoreError } from '../errors/spanscore-error.js';
import { childSpans } from '../../test/helpers/child-spans.js';
import { oneSpanTraces, otlpRequest, traceId } from '../../test/helpers/otlp-json-builder.js';
import { decodeOtlpJson } from '../ingest/decode-otlp-json.js';
import {
  createMemoryTraceAssembler,
  type MemoryTraceAssemblerOptions,
} from './memory-trace-assembler.js';
import { configSchema } from '../config/config-schema.js';
import { memoryAssemblyLimits } from './memory-queue-driver.js';

/** The limits and retries the config gives by default. */
const LIMITS = memoryAssemblyLimits(configSchema.parse({}));

const policy = { settleMs: 2000, maxWaitMs: 30_000 };
const traceIdOf = (spans: ReturnType<typeof sdkSpans>['spans']) => spans[0]!.spanContext().traceId;

function sdkSpans() {
  const { provider, spans } = recordingProvider('memory-assembler');
  const tracer = provider.getTracer('t');
  const root = tracer.startSpan('root');
  tracer
    .startSpan(
      'tool',
      { attributes: { 'gen_ai.tool.name': 'x' } },
      trace.setSpan(context.active(), root),
    )
    .end();
  root.end();
  return { spans: spans() };
}

function setup(options: Partial<MemoryTraceAssemblerOptions> = {}) {
  const processed: Array<{ traceId: string; names: string[] }> = [];
  const assembler = createMemoryTraceAssembler({
    ...LIMITS,
    policy,
    process: (id, list) => {
      processed.push({ traceId: id, names: list.map(s => s.name).sort() });
      return Promise.resolve();
    },
    ...options,
  });
  return { assembler, processed };
}

/** One request of `count` one-span traces (each span its trace's root), from trace `first`. */
const manyTraces = (first: number, count: number) =>
  decodeOtlpJson(otlpRequest(oneSpanTraces(first, count))).spans;

/** Resolves after the event loop's next check phase. */
const nextTurn = () => new Promise(resolve => setImmediate(resolve));

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('memory trace assembler', () => {
  it('scores a trace once, settleMs after its last span once the root has ended, with spans from every batch', async () => {
    const { assembler, processed } = setup();
    await assembler.accept(childSpans(1, ['tool-a']));
    await vi.advanceTimersByTimeAsync(1000);
    await assembler.accept(childSpans(1, ['root'])); // the root arrives last, as exporters often send it
    await vi.advanceTimersByTimeAsync(1500);
    await assembler.accept(childSpans(1, ['tool-b'])); // a straggler restarts the settle window
    await vi.advanceTimersByTimeAsync(1999);
    expect(processed).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(processed).toEqual([{ traceId: traceId(1), names: ['root', 'tool-a', 'tool-b'] }]);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(processed).toHaveLength(1);
  });

  it('holds attributes as bytes of their own, not the request body, and decodes none until scoring', async () => {
    const { spans: sdk } = sdkSpans();
    const body = Buffer.from(ProtobufTraceSerializer.serializeRequest(sdk)!);
    const { spans } = decodeOtlpProtobuf(body);
    const wire = spans.filter((s): s is WireSpanDigest => s instanceof WireSpanDigest);
    expect(wire.length).toBe(spans.length);
    expect(wire.every(s => s.attributeRecords()?.buf === body)).toBe(true);
    const { assembler } = setup();
    await assembler.accept(spans);
    // Not decoded (the records are still there), and no longer read from the request body.
    expect(wire.every(s => s.attributeRecords() !== undefined)).toBe(true);
    expect(wire.some(s => s.attributeRecords()!.buf === body)).toBe(false);
    const recordBytes = wire.reduce(
      (n, s) => n + s.attributeRecords()!.end - s.attributeRecords()!.start,
      0,
    );
    expect(assembler.stats()).toMatchObject({ heldSpans: 2, heldBytes: recordBytes });
    const held = assembler.pendingSpans(traceIdOf(sdk))!;
    expect(held.map(s => s.name).sort()).toEqual(['root', 'tool']);
    expect(held.find(s => s.name === 'tool')!.attributes).toEqual({ 'gen_ai.tool.name': 'x' });
  });

  it('keeps a span sent twice once, and finds the root by looking at each batch once', async () => {
    const { assembler, processed } = setup();
    const spans = childSpans(90, ['tool-a', 'tool-b']);
    await assembler.accept(spans);
    await assembler.accept(spans); // an exporter retrying a request whose answer it lost
    await assembler.accept(childSpans(90, ['root']));
    expect(assembler.stats().heldSpans).toBe(3);
    await vi.advanceTimersByTimeAsync(2000);
    expect(processed).toEqual([{ traceId: traceId(90), names: ['root', 'tool-a', 'tool-b'] }]);
  });

  it('scores spans that come while their trace waits for a slot with it, and counts those that come while it is scored as late', async () => {
    const late: Array<[string, number]> = [];
    let release!: () => void;
    const gate = new Promise<void>(resolve => (release = resolve));
    const processed: Array<{ traceId: string; names: string[] }> = [];
    const assembler = createMemoryTraceAssembler({
      ...LIMITS,
      policy,
      concurrency: 1,
      onLateSpans: (id, n) => late.push([id, n]),
      process: async (id, list) => {
        processed.push({ traceId: id, names: list.map(s => s.name).sort() });
        if (id === traceId(91)) await gate; // the first trace holds the only slot
      },
    });
    await assembler.accept(childSpans(91, ['root']));
    await assembler.accept(childSpans(92, ['root']));
    await vi.advanceTimersByTimeAsync(2000); // both ready: 91 being scored, 92 queued behind it
    await assembler.accept(childSpans(92, ['queued-tool']));
    await assembler.accept(childSpans(91, ['during-scoring']));
    release();
    await vi.advanceTimersByTimeAsync(10_000);
    // One pass each: no second, partial trace for the spans that came meanwhile.
    expect(processed).toEqual([
      { traceId: traceId(91), names: ['root'] },
      { traceId: traceId(92), names: ['queued-tool', 'root'] },
    ]);
    expect(late).toEqual([[traceId(91), 1]]);
    expect(assembler.stats()).toMatchObject({ bufferedTraces: 0, heldSpans: 0, lateSpans: 1 });
  });

  it('with rescoreLateSpans, rescores a trace with the spans that came while it was scored', async () => {
    let release!: () => void;
    const gate = new Promise<void>(resolve => (release = resolve));
    const processed: string[][] = [];
    const assembler = createMemoryTraceAssembler({
      ...LIMITS,
      policy,
      rescoreLateSpans: true,
      process: async (_id, list) => {
        processed.push(list.map(s => s.name).sort());
        if (processed.length === 1) await gate;
      },
    });
    await assembler.accept(childSpans(93, ['root']));
    await vi.advanceTimersByTimeAsync(2000);
    await assembler.accept(childSpans(93, ['during-scoring']));
    release();
    await vi.advanceTimersByTimeAsync(1999);
    expect(processed).toEqual([['root']]);
    await vi.advanceTimersByTimeAsync(1);
    expect(processed).toEqual([['root'], ['during-scoring', 'root']]);
  });

  it('scores a trace whose root never arrives at maxWaitMs after its first span', async () => {
    const { assembler, processed } = setup();
    await assembler.accept(childSpans(2, ['orphan']));
    await vi.advanceTimersByTimeAsync(29_999);
    expect(processed).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(processed.map(p => p.names)).toEqual([['orphan']]);
  });

  it('keeps interleaved traces apart', async () => {
    const { assembler, processed } = setup();
    const a = childSpans(3, ['root', 'a1']);
    const b = childSpans(4, ['root', 'b1']);
    await assembler.accept([a[0]!, b[1]!]);
    await assembler.accept([b[0]!, a[1]!]);
    await vi.advanceTimersByTimeAsync(2000);
    expect(processed.sort((x, y) => x.traceId.localeCompare(y.traceId))).toEqual([
      { traceId: traceId(3), names: ['a1', 'root'] },
      { traceId: traceId(4), names: ['b1', 'root'] },
    ]);
  });

  it('counts spans that arrive after their trace was scored, and rescores with all spans when asked', async () => {
    const late: Array<[string, number]> = [];
    const off = setup({ onLateSpans: (id, n) => late.push([id, n]) });
    await off.assembler.accept(childSpans(5, ['root']));
    await vi.advanceTimersByTimeAsync(2000);
    await off.assembler.accept(childSpans(5, ['late-tool']));
    await vi.advanceTimersByTimeAsync(5000);
    expect(off.processed).toHaveLength(1);
    expect(late).toEqual([[traceId(5), 1]]);
    expect(off.assembler.stats().lateSpans).toBe(1);

    const on = setup({ rescoreLateSpans: true });
    await on.assembler.accept(childSpans(6, ['root']));
    await vi.advanceTimersByTimeAsync(2000);
    await on.assembler.accept(childSpans(6, ['late-tool']));
    await vi.advanceTimersByTimeAsync(2000);
    expect(on.processed.map(p => p.names)).toEqual([['root'], ['late-tool', 'root']]);
  });

  it('refuses a batch whole past maxBufferedSpans (429) and recovers once traces are scored', async () => {
    const { assembler, processed } = setup({ maxBufferedSpans: 3 });
    await assembler.accept(childSpans(7, ['root', 'x']));
    await expect(assembler.accept(childSpans(8, ['root', 'y']))).rejects.toMatchObject({
      code: 'SS_INGEST_SATURATED',
      retryAfterSeconds: 1,
    });
    expect(assembler.stats()).toMatchObject({ bufferedTraces: 1, heldSpans: 2 });
    await vi.advanceTimersByTimeAsync(2000);
    expect(assembler.stats().heldSpans).toBe(0);
    await assembler.accept(childSpans(8, ['root', 'y']));
    await vi.advanceTimersByTimeAsync(2000);
    expect(processed.map(p => p.traceId)).toEqual([traceId(7), traceId(8)]);
  });

  it('retries a retryable failure with exponential backoff, and gives up at once on others', async () => {
    let calls = 0;
    const failed: string[] = [];
    const assembler = createMemoryTraceAssembler({
      ...LIMITS,
      policy,
      backoffMs: 1000,
      onFailed: id => failed.push(id),
      process: id => {
        calls++;
        if (id === traceId(9) && calls <= 2)
          return Promise.reject(new SpanscoreError('SS_EXPORT_FAILED', 'backend down'));
        if (id === traceId(10)) return Promise.reject(new TypeError('a bug'));
        return Promise.resolve();
      },
    });
    await assembler.accept(childSpans(9, ['root']));
    await vi.advanceTimersByTimeAsync(2000); // first attempt fails
    expect(calls).toBe(1);
    await vi.advanceTimersByTimeAsync(1000); // retry after 1 s fails
    expect(calls).toBe(2);
    await vi.advanceTimersByTimeAsync(1999);
    expect(calls).toBe(2);
    await vi.advanceTimersByTimeAsync(1); // then after 2 s succeeds
    expect(assembler.stats()).toMatchObject({ scored: 1, retries: 2, failed: 0 });

    await assembler.accept(childSpans(10, ['root']));
    await vi.advanceTimersByTimeAsync(2000);
    expect(failed).toEqual([traceId(10)]);
    expect(assembler.stats()).toMatchObject({ scored: 1, failed: 1 });
  });

  it('runs at most `concurrency` traces at once', async () => {
    let running = 0;
    let most = 0;
    const assembler = createMemoryTraceAssembler({
      ...LIMITS,
      policy,
      concurrency: 2,
      process: async () => {
        most = Math.max(most, ++running);
        await new Promise(resolve => setTimeout(resolve, 100));
        running--;
      },
    });
    for (let t = 20; t < 26; t++) await assembler.accept(childSpans(t, ['root']));
    await vi.advanceTimersByTimeAsync(2000 + 400);
    expect(assembler.stats().scored).toBe(6);
    expect(most).toBe(2);
  });

  it('delivers outside the scoring slot: a trace waiting on its export holds no other up, nor its spans', async () => {
    const scored: string[] = [];
    let releaseExport!: () => void;
    const exportDone = new Promise<void>(resolve => (releaseExport = resolve));
    const assembler = createMemoryTraceAssembler({
      ...LIMITS,
      policy,
      concurrency: 1,
      process: id => {
        scored.push(id);
        // Every trace's export waits until the backend answers.
        return Promise.resolve(() => exportDone);
      },
    });
    for (let t = 30; t < 34; t++) await assembler.accept(childSpans(t, ['root']));
    await vi.advanceTimersByTimeAsync(2000 + 10);
    // With one slot, all four were scored while the first export still waited.
    expect(scored).toEqual([traceId(30), traceId(31), traceId(32), traceId(33)]);
    // Their source spans are released once scored: what waits is the delivery alone.
    expect(assembler.stats()).toMatchObject({ scored: 0, heldSpans: 0, waitingDeliveries: 4 });
    releaseExport();
    await vi.advanceTimersByTimeAsync(1);
    expect(assembler.stats()).toMatchObject({ scored: 4, heldSpans: 0, waitingDeliveries: 0 });
  });

  it('retries a delivery that failed to export on its own, without scoring again', async () => {
    let scorings = 0;
    let deliveries = 0;
    const assembler = createMemoryTraceAssembler({
      ...LIMITS,
      policy,
      backoffMs: 100,
      process: () => {
        scorings++;
        return Promise.resolve(() =>
          ++deliveries === 1
            ? Promise.reject(new SpanscoreError('SS_EXPORT_FAILED', 'backend down'))
            : Promise.resolve(),
        );
      },
    });
    await assembler.accept(childSpans(35, ['root']));
    await vi.advanceTimersByTimeAsync(2000 + 100 + 10);
    expect([scorings, deliveries]).toEqual([1, 2]);
    expect(assembler.stats()).toMatchObject({ scored: 1, failed: 0, retries: 1 });
  });

  it('an export outage never blocks ingest: spans of traces waiting on it are not held', async () => {
    const assembler = createMemoryTraceAssembler({
      ...LIMITS,
      policy,
      maxBufferedSpans: 3,
      process: () =>
        Promise.resolve(() =>
          Promise.reject(new SpanscoreError('SS_EXPORT_FAILED', 'backend down')),
        ),
      exportRetry: { maxAgeMs: 3_600_000, maxBackoffMs: 60_000 },
    });
    for (let t = 40; t < 46; t++) {
      await assembler.accept(childSpans(t, ['root', 'tool']));
      await vi.advanceTimersByTimeAsync(2010);
    }
    expect(assembler.stats()).toMatchObject({ heldSpans: 0, waitingDeliveries: 6, failed: 0 });
  });

  it('past maxWaitingDeliveries, a scored trace is not delivered and ends failed with the reason', async () => {
    const failures: string[] = [];
    const assembler = createMemoryTraceAssembler({
      ...LIMITS,
      policy,
      maxWaitingDeliveries: 2,
      process: () => Promise.resolve(() => new Promise<void>(() => {})), // the backend never answers
      onFailed: (_id, error) => failures.push((error as Error).message),
    });
    for (let t = 50; t < 53; t++) await assembler.accept(childSpans(t, ['root']));
    await vi.advanceTimersByTimeAsync(2010);
    expect(assembler.stats()).toMatchObject({ waitingDeliveries: 2, failed: 1 });
    expect(failures).toEqual([
      'not exported: 2 scored traces already wait for the tracing backend (at most 2)',
    ]);
  });

  it('keeps maxSpansPerTrace spans of a trace, refuses the rest, and says so to its scoring', async () => {
    const notes: string[][] = [];
    const sizes: number[] = [];
    const assembler = createMemoryTraceAssembler({
      ...LIMITS,
      policy,
      maxSpansPerTrace: 3,
      process: (_id, spans, attempt) => {
        sizes.push(spans.length);
        notes.push(attempt.notes.map(n => `${n.code}: ${n.message}`));
        return Promise.resolve();
      },
    });
    expect(await assembler.accept(childSpans(60, ['a', 'b']))).toBeUndefined();
    expect(await assembler.accept(childSpans(60, ['c', 'd', 'root']))).toEqual({
      refusedSpans: 2,
      reason: 'trace(s) past assembly.maxSpansPerTrace (3 spans): later spans are not kept',
    });
    expect(assembler.stats()).toMatchObject({ heldSpans: 3, truncatedSpans: 2 });
    await vi.advanceTimersByTimeAsync(30_000);
    expect(sizes).toEqual([3]);
    expect(notes).toEqual([
      [
        'trace_truncated: the trace has more spans than a trace may keep (assembly.maxSpansPerTrace 3): 2 later span(s) were refused, and it was scored with its first 3',
      ],
    ]);
  });

  it('refuses a service past its share of the buffer while others send, and still accepts the others', async () => {
    const assembler = createMemoryTraceAssembler({
      ...LIMITS,
      policy,
      maxBufferedSpans: 10,
      maxServiceShare: 0.5,
      process: () => Promise.resolve(),
    });
    const from = (service: string, t: number, names: string[]) =>
      childSpans(t, names).map(span => Object.assign(span, { serviceName: service }));
    // Alone, a service may use the whole buffer.
    await assembler.accept(from('big', 70, ['a', 'b', 'c', 'd', 'e', 'f']));
    await assembler.accept(from('small', 71, ['a']));
    await expect(assembler.accept(from('big', 72, ['a']))).rejects.toMatchObject({
      code: 'SS_INGEST_SATURATED',
      message: expect.stringContaining('service "big" holds 6 buffered spans'),
    });
    await assembler.accept(from('small', 73, ['a', 'b']));
    expect(assembler.stats().heldSpans).toBe(9);
  });

  it('close() does not wait out export retries: a scored trace is not unfinished, its delivery ends failed', async () => {
    const failures: string[] = [];
    const assembler = createMemoryTraceAssembler({
      ...LIMITS,
      policy,
      process: () =>
        Promise.resolve(() =>
          Promise.reject(new SpanscoreError('SS_EXPORT_FAILED', 'connect ECONNREFUSED')),
        ),
      exportRetry: { maxAgeMs: 3_600_000, maxBackoffMs: 60_000 },
      onFailed: (_id, error) => failures.push((error as Error).message),
    });
    await assembler.accept(childSpans(80, ['root']));
    await vi.advanceTimersByTimeAsync(2010); // scored; its export failed and waits for a retry
    expect(assembler.stats()).toMatchObject({ waitingDeliveries: 1, failed: 0 });
    const closing = assembler.close(10_000);
    await vi.advanceTimersByTimeAsync(0);
    expect(await closing).toEqual({ unfinished: 0 });
    expect(failures).toEqual([
      'not exported: the process stopped while the export was being retried (connect ECONNREFUSED)',
    ]);
  });

  it('close() waits deliveryGraceMs for an export under way, then ends it failed', async () => {
    const failures: string[] = [];
    const assembler = createMemoryTraceAssembler({
      ...LIMITS,
      policy,
      deliveryGraceMs: 2000,
      process: () => Promise.resolve(() => new Promise<void>(() => {})), // never answers
      onFailed: (_id, error) => failures.push((error as Error).message),
    });
    await assembler.accept(childSpans(81, ['root']));
    await vi.advanceTimersByTimeAsync(2010);
    let closed = false;
    const closing = assembler.close(10_000).then(r => ((closed = true), r));
    await vi.advanceTimersByTimeAsync(1999);
    expect(closed).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await closing).toEqual({ unfinished: 0 });
    expect(failures).toEqual(['not exported: the process stopped while the export was under way']);
    expect(assembler.stats()).toMatchObject({ scored: 0, failed: 1 });
  });

  it('close() scores what is buffered now, waits for it, and refuses new spans (503)', async () => {
    const { assembler, processed } = setup();
    await assembler.accept(childSpans(30, ['tool'])); // no root: would wait 30 s
    const closing = assembler.close(5000);
    await vi.advanceTimersByTimeAsync(0);
    expect(await closing).toEqual({ unfinished: 0 });
    expect(processed.map(p => p.names)).toEqual([['tool']]);
    await expect(assembler.accept(childSpans(31, ['root']))).rejects.toMatchObject({
      code: 'SS_INGEST_UNAVAILABLE',
    });
  });
  describe('a request of many traces (a burst), added in slices of 1,000', () => {
    beforeEach(() => vi.useRealTimers());
    const quick = { settleMs: 10, maxWaitMs: 1000 };

    it('lets the event loop turn between slices, and scores every trace', async () => {
      const { assembler, processed } = setup({
        policy: { ...quick, settleMs: 500 },
        maxBufferedSpans: 10_000,
      });
      const seen: number[] = [];
      const accepted = assembler.accept(manyTraces(1, 2500));
      // Callbacks of later turns of the loop see the request part added, then all of it.
      setImmediate(() => seen.push(assembler.stats().bufferedTraces));
      await accepted;
      seen.push(assembler.stats().bufferedTraces);
      expect(seen[0]).toBeGreaterThanOrEqual(1000);
      expect(seen[0]).toBeLessThan(2500);
      expect(seen[1]).toBe(2500);
      await vi.waitFor(() => expect(processed).toHaveLength(2500), { timeout: 10_000 });
      expect(new Set(processed.map(p => p.traceId)).size).toBe(2500);
    });

    it('counts its spans as held from the start: a request answered between slices sees the buffer as it will be', async () => {
      const { assembler } = setup({
        policy: { ...quick, settleMs: 60_000 },
        maxBufferedSpans: 3000,
      });
      const accepted = assembler.accept(manyTraces(1, 2500));
      await nextTurn();
      expect(assembler.stats().bufferedTraces).toBeLessThan(2500);
      await expect(assembler.accept(manyTraces(5001, 600))).rejects.toMatchObject({
        code: 'SS_INGEST_SATURATED',
        message: 'the span buffer holds 2500 of at most 3000 spans',
      });
      await accepted;
      await assembler.accept(manyTraces(5001, 500));
      expect(assembler.stats()).toMatchObject({ bufferedTraces: 3000, heldSpans: 3000 });
    });

    it('close() while one is being added: the request is added whole, then everything is scored', async () => {
      const { assembler, processed } = setup({
        policy: { ...quick, settleMs: 60_000 },
        maxBufferedSpans: 10_000,
      });
      const accepted = assembler.accept(manyTraces(1, 2500));
      const closing = assembler.close(5000);
      await expect(accepted).resolves.toBeUndefined();
      expect(await closing).toEqual({ unfinished: 0 });
      expect(processed).toHaveLength(2500);
    });
  });
});
