import { context, trace } from '@opentelemetry/api';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { recordingProvider } from '../../test/helpers/sdk-spans.js';
import { decodeOtlpProtobuf } from '../ingest/decode-otlp-protobuf.js';
import { WireSpanDigest } from '../ingest/wire-span-digest.js';
import { childSpans } from '../../test/helpers/child-spans.js';
import {
  ASSEMBLY_LIMITS,
  ASSEMBLY_POLICY,
  recordingAssembler,
} from '../../test/helpers/memory-assembler.js';
import { traceId } from '../../test/helpers/otlp-json-builder.js';
import { createMemoryTraceAssembler } from './memory-trace-assembler.js';

// The memory trace assembler's readiness and late spans. Its limits, deliveries and shutdown:
// memory-trace-assembler.limits.test.ts, .delivery.test.ts and .close.test.ts.

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

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('memory trace assembler: when a trace is scored, with which spans', () => {
  it('scores a trace once, settleMs after its last span once the root has ended, with spans from every batch', async () => {
    const { assembler, processed } = recordingAssembler();
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
    const { assembler } = recordingAssembler();
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

  it('moves records of every size intact: a few bytes, and more than are copied byte by byte', async () => {
    const { provider, spans: recorded } = recordingProvider('memory-assembler');
    const tracer = provider.getTracer('t');
    const root = tracer.startSpan('root', { attributes: { small: 's' } });
    const long = 'x'.repeat(5000);
    tracer
      .startSpan('tool', { attributes: { long, n: 7 } }, trace.setSpan(context.active(), root))
      .end();
    root.end();
    const sdk = recorded();
    const body = Buffer.from(ProtobufTraceSerializer.serializeRequest(sdk)!);
    const { spans } = decodeOtlpProtobuf(body);
    const { assembler } = recordingAssembler();
    await assembler.accept(spans);
    body.fill(0); // what the spans read now is their own copy
    const held = assembler.pendingSpans(traceIdOf(sdk))!;
    expect(held.find(s => s.name === 'root')!.attributes).toEqual({ small: 's' });
    expect(held.find(s => s.name === 'tool')!.attributes).toEqual({ long, n: 7 });
  });

  it('keeps a span sent twice once, and finds the root by looking at each batch once', async () => {
    const { assembler, processed } = recordingAssembler();
    const spans = childSpans(90, ['tool-a', 'tool-b']);
    await assembler.accept(spans);
    await assembler.accept(spans); // an exporter retrying a request whose answer it lost
    await assembler.accept(childSpans(90, ['root']));
    expect(assembler.stats().heldSpans).toBe(3);
    await vi.advanceTimersByTimeAsync(2000);
    expect(processed).toEqual([{ traceId: traceId(90), names: ['root', 'tool-a', 'tool-b'] }]);
  });

  it('keeps each span once past the spans whose ids it looks up one by one, within a batch and across batches', async () => {
    const { assembler, processed } = recordingAssembler();
    const names = Array.from({ length: 40 }, (_, i) => `tool-${i}`);
    const first = childSpans(91, names.slice(0, 30));
    const second = childSpans(91, names.slice(30));
    // Past 32 spans the ids are looked up in a set: the second batch crosses it, sent twice.
    await assembler.accept(first);
    await assembler.accept([...second, ...first.slice(0, 5), ...second]);
    await assembler.accept(second);
    expect(assembler.stats().heldSpans).toBe(40);
    await assembler.accept(childSpans(91, ['root']));
    expect(assembler.stats().heldSpans).toBe(41);
    await vi.advanceTimersByTimeAsync(2000);
    expect(processed).toHaveLength(1);
    expect(processed[0]!.names).toHaveLength(41);
    expect(new Set(processed[0]!.names).size).toBe(41);
  });

  it('scores spans that come while their trace waits for a slot with it, and counts those that come while it is scored as late', async () => {
    const late: Array<[string, number]> = [];
    let release!: () => void;
    const gate = new Promise<void>(resolve => (release = resolve));
    const processed: Array<{ traceId: string; names: string[] }> = [];
    const assembler = createMemoryTraceAssembler({
      ...ASSEMBLY_LIMITS,
      policy: ASSEMBLY_POLICY,
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
      ...ASSEMBLY_LIMITS,
      policy: ASSEMBLY_POLICY,
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
    const { assembler, processed } = recordingAssembler();
    await assembler.accept(childSpans(2, ['orphan']));
    await vi.advanceTimersByTimeAsync(29_999);
    expect(processed).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(processed.map(p => p.names)).toEqual([['orphan']]);
  });

  it('keeps interleaved traces apart', async () => {
    const { assembler, processed } = recordingAssembler();
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
    const off = recordingAssembler({ onLateSpans: (id, n) => late.push([id, n]) });
    await off.assembler.accept(childSpans(5, ['root']));
    await vi.advanceTimersByTimeAsync(2000);
    await off.assembler.accept(childSpans(5, ['late-tool']));
    await vi.advanceTimersByTimeAsync(5000);
    expect(off.processed).toHaveLength(1);
    expect(late).toEqual([[traceId(5), 1]]);
    expect(off.assembler.stats().lateSpans).toBe(1);

    const on = recordingAssembler({ rescoreLateSpans: true });
    await on.assembler.accept(childSpans(6, ['root']));
    await vi.advanceTimersByTimeAsync(2000);
    await on.assembler.accept(childSpans(6, ['late-tool']));
    await vi.advanceTimersByTimeAsync(2000);
    expect(on.processed.map(p => p.names)).toEqual([['root'], ['late-tool', 'root']]);
  });
});
