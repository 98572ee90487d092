import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { decodedTraceRequest } from '../../test/helpers/decoded-trace-request.js';
import { ProtobufWriter } from '../protobuf/protobuf-writer.js';
import { SPANSCORE_VERSION } from '../version.js';
import { encodeEvaluationSpans } from './encode-evaluation-spans.js';
import { toReadableSpan } from './otlp-evaluation-exporter.js';
import type { EvaluationAttributeValue, EvaluationSpan } from './score-to-span.js';
import { WrittenSpanParts } from './written-span-parts.js';

// The scope the exporter's tracer has: the SDK's serializer writes its name and version.
const origin = {
  serviceName: 'spanscore',
  scope: { name: 'spanscore', version: SPANSCORE_VERSION },
};
const resource = resourceFromAttributes({ 'service.name': 'spanscore' });
/** What the OpenTelemetry SDK's own serializer writes for the same spans, decoded. */
const sdkObject = (spans: readonly EvaluationSpan[]): unknown =>
  decodedTraceRequest(
    ProtobufTraceSerializer.serializeRequest(spans.map(s => toReadableSpan(s, resource)))!,
  );

const hex = (length: number) =>
  fc
    .array(fc.constantFrom(...'0123456789abcdef'), { minLength: length, maxLength: length })
    .map(cs => cs.join(''));
// Valid Unicode (lone surrogates the SDK's UTF-8 writer and Buffer's write differently), some long
// enough for a record's length, or a span's, to take two or three bytes.
const text = fc.oneof(
  { weight: 6, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', minLength: 100, maxLength: 300 }) },
  { weight: 1, arbitrary: fc.integer({ min: 16_000, max: 20_000 }).map(n => 'é'.repeat(n)) },
);
const scalar: fc.Arbitrary<EvaluationAttributeValue> = fc.oneof(
  text,
  fc.integer({ min: -1_000_000, max: 1_000_000 }),
  fc.double({ min: -1e6, max: 1e6, noNaN: true }),
  fc.constantFrom(Number.NaN, -0),
  fc.boolean(),
);
// Twenty, past the sixteen leading records kept for an event; integer-like keys enumerate first.
const KEYS = [
  ...['gen_ai.evaluation.name', 'status', 'score', 'label', 'why', 'kind', 'case', 'rule'],
  ...['model', 'tokens.in', 'tokens.out', 'cached', 'cost', 'agent', 'service', 'turns'],
  ...['1', '10', 'turn', 'é.clé'],
];
const LIST_KEYS = ['tools_used', 'tool_sequence', 'agents', 'expected', 'missing'];

/** How a span's event attributes relate to its attributes. */
type EventShape = 'prefix' | 'with-list' | 'empty' | 'other-value' | 'reordered' | 'extra-key';

/** Spans of up to three traces, whose lists are shared between a trace's spans, as facts are. */
const request = fc
  .array(
    fc.record({
      traceId: hex(32),
      lists: fc.array(fc.array(text, { maxLength: 12 }), { minLength: 1, maxLength: 10 }),
      spans: fc.array(
        fc.record({
          leading: fc.uniqueArray(fc.constantFrom(...KEYS), { maxLength: KEYS.length }),
          values: fc.array(scalar, { minLength: KEYS.length, maxLength: KEYS.length }),
          // Which list (by index, modulo the trace's) each list key takes, or none.
          lists: fc.array(fc.option(fc.nat(), { nil: undefined }), {
            minLength: LIST_KEYS.length,
            maxLength: LIST_KEYS.length,
          }),
          tail: fc.option(text, { nil: undefined }),
          event: fc.constantFrom<EventShape>(
            'prefix',
            'prefix',
            'with-list',
            'empty',
            'other-value',
            'reordered',
            'extra-key',
          ),
          spanId: hex(16),
          parentSpanId: fc.oneof(hex(16), fc.constant('')),
          // What the link names: the span's parent in its trace (as `scoreToSpan` makes spans:
          // the encoder copies the ids it wrote), another span, or another trace's span.
          link: fc.constantFrom<'parent' | 'other-span' | 'other-trace'>(
            'parent',
            'parent',
            'other-span',
            'other-trace',
          ),
          linkTraceId: hex(32),
          turns: fc.array(fc.tuple(hex(32), hex(16)), { maxLength: 3 }),
          failed: fc.option(text, { nil: undefined }),
        }),
        { minLength: 1, maxLength: 4 },
      ),
    }),
    { minLength: 1, maxLength: 3 },
  )
  .chain(traces => {
    const spans = traces.flatMap(t =>
      t.spans.map(s => {
        const leading: Record<string, EvaluationAttributeValue> = {};
        s.leading.forEach((k, i) => (leading[k] = s.values[i]!));
        const attributes: Record<string, EvaluationAttributeValue> = { ...leading };
        s.lists.forEach((which, i) => {
          if (which !== undefined) attributes[LIST_KEYS[i]!] = t.lists[which % t.lists.length]!;
        });
        if (s.tail !== undefined) attributes.tail = s.tail;
        let event: Record<string, EvaluationAttributeValue> = leading;
        const keys = Object.keys(leading);
        if (s.event === 'empty') event = {};
        else if (s.event === 'other-value' && keys.length)
          event = { ...leading, [keys[keys.length - 1]!]: `not ${String(leading[keys.at(-1)!])}` };
        else if (s.event === 'reordered' && keys.length > 1)
          event = Object.fromEntries(Object.entries(leading).reverse());
        else if (s.event === 'extra-key') event = { ...leading, 'only.in.event': 'x' };
        else if (s.event === 'with-list')
          // The span's attributes up to its first list, the list (the same array) included.
          event = Object.fromEntries(Object.entries(attributes).slice(0, keys.length + 1));
        const span: EvaluationSpan = {
          traceId: t.traceId,
          spanId: s.spanId,
          parentSpanId: s.parentSpanId,
          name: 'evaluation x',
          startTimeUnixNano: 1_795_000_000_000_000_000n,
          endTimeUnixNano: 1_795_000_000_500_000_000n,
          attributes,
          link: {
            traceId: s.link === 'other-trace' ? s.linkTraceId : t.traceId,
            spanId: s.link === 'parent' && s.parentSpanId ? s.parentSpanId : 'aaaaaaaaaaaaaaaa',
          },
          turnLinks: s.turns.map(([traceId, spanId], i) => ({ traceId, spanId, turn: i + 1 })),
          event: { name: 'gen_ai.evaluation.result', timeUnixNano: 1n, attributes: event },
          statusCode: s.failed === undefined ? 0 : 2,
          statusMessage: s.failed ?? '',
        };
        return span;
      }),
    );
    // As the runtime hands them (a trace's spans together), or interleaved.
    return fc.oneof(fc.constant(spans), fc.shuffledSubarray(spans, { minLength: spans.length }));
  });

describe('WrittenSpanParts: lists and events copied, not encoded again', () => {
  afterEach(() => vi.restoreAllMocks());

  it("writes what the SDK's serializer writes, whatever is shared, moved or different", () => {
    fc.assert(
      fc.property(request, spans => {
        expect(decodedTraceRequest(encodeEvaluationSpans(spans, origin))).toEqual(sdkObject(spans));
      }),
      { numRuns: 300 },
    );
  });

  it('writes the very bytes it wrote before it copied anything', () => {
    fc.assert(
      fc.property(request, spans => {
        const copied = Buffer.from(encodeEvaluationSpans(spans, origin));
        // Every record encoded, as the encoder did before it kept anything to copy.
        const attributes = vi
          .spyOn(WrittenSpanParts.prototype, 'attributes')
          .mockImplementation((w, a) => w.keyValues(9, a, 'int-or-double'));
        const event = vi
          .spyOn(WrittenSpanParts.prototype, 'eventAttributes')
          .mockImplementation((w, a) => w.keyValues(3, a, 'int-or-double'));
        try {
          expect(copied.equals(encodeEvaluationSpans(spans, origin))).toBe(true);
        } finally {
          attributes.mockRestore();
          event.mockRestore();
        }
      }),
      { numRuns: 300 },
    );
  });

  it('encodes each shared list once a trace, and each event not at all, counted', () => {
    const keyValue = vi.spyOn(ProtobufWriter.prototype, 'keyValue');
    const repeat = vi.spyOn(ProtobufWriter.prototype, 'repeat');
    const tools = ['search_flights', 'book_hotel', 'get_weather'];
    const sequence = ['search_flights', 'book_hotel', 'search_flights', 'get_weather'];
    const agents = ['travel'];
    const span = (traceId: string, scorer: string): EvaluationSpan => {
      const evaluation = { 'gen_ai.evaluation.name': scorer, 'gen_ai.evaluation.score.value': 1 };
      return {
        traceId,
        spanId: 'bbbbbbbbbbbbbbbb',
        parentSpanId: 'aaaaaaaaaaaaaaaa',
        name: `evaluation ${scorer}`,
        startTimeUnixNano: 1n,
        endTimeUnixNano: 2n,
        attributes: {
          ...evaluation,
          'spanscore.tools_used': tools,
          'spanscore.tool_sequence': sequence,
          'spanscore.agents': agents,
          'spanscore.test_case.id': 'case-1',
        },
        link: { traceId, spanId: 'aaaaaaaaaaaaaaaa' },
        turnLinks: [],
        event: { name: 'gen_ai.evaluation.result', timeUnixNano: 2n, attributes: evaluation },
        statusCode: 0,
        statusMessage: '',
      };
    };
    const a = 'a'.repeat(32);
    const b = 'b'.repeat(32);
    const spans = ['s1', 's2', 's3', 's4'].map(s => span(a, s));
    spans.push(span(b, 's1'), span(b, 's2'));
    const bytes = encodeEvaluationSpans(spans, origin);
    expect(decodedTraceRequest(bytes)).toEqual(sdkObject(spans));
    // Encoded: service.name; per span its 3 scalars and link.type; each trace's first span its
    // 3 lists. Not encoded: any later span's lists (3 copies each), every event (a copy each)
    // and every link's trace and span ids (the span's own and its parent's: two copies each).
    expect(keyValue).toHaveBeenCalledTimes(1 + 6 * (3 + 1) + 2 * 3);
    expect(repeat).toHaveBeenCalledTimes(3 * 3 + 1 * 3 + 6 + 6 * 2);
  });

  it("encodes a link's ids that are not its span's trace and parent, as the SDK would", () => {
    const repeat = vi.spyOn(ProtobufWriter.prototype, 'repeat');
    const span = (parentSpanId: string, link: EvaluationSpan['link']): EvaluationSpan => ({
      traceId: 'd'.repeat(32),
      spanId: 'eeeeeeeeeeeeeeee',
      parentSpanId,
      name: 'evaluation x',
      startTimeUnixNano: 1n,
      endTimeUnixNano: 2n,
      attributes: {},
      link,
      turnLinks: [],
      event: { name: 'gen_ai.evaluation.result', timeUnixNano: 2n, attributes: {} },
      statusCode: 0,
      statusMessage: '',
    });
    const spans = [
      span('aaaaaaaaaaaaaaaa', { traceId: 'f'.repeat(32), spanId: 'aaaaaaaaaaaaaaaa' }),
      span('aaaaaaaaaaaaaaaa', { traceId: 'd'.repeat(32), spanId: 'cccccccccccccccc' }),
      span('', { traceId: 'F'.repeat(32), spanId: '0123456789ABCDEF' }),
    ];
    expect(decodedTraceRequest(encodeEvaluationSpans(spans, origin))).toEqual(sdkObject(spans));
    // Copied: the first span's link's parent id, the second's trace id; nothing of the third's.
    expect(repeat).toHaveBeenCalledTimes(2);
  });

  it('carries nothing from one request to the next, even one that threw', () => {
    const repeat = vi.spyOn(ProtobufWriter.prototype, 'repeat');
    const list = ['lookup', 'refund'];
    const span = (eventTime: bigint): EvaluationSpan => ({
      traceId: 'd'.repeat(32),
      spanId: 'eeeeeeeeeeeeeeee',
      parentSpanId: '',
      name: 'evaluation x',
      startTimeUnixNano: 1n,
      endTimeUnixNano: 2n,
      attributes: { 'spanscore.tools_used': list },
      link: { traceId: 'd'.repeat(32), spanId: 'aaaaaaaaaaaaaaaa' },
      turnLinks: [],
      event: { name: 'gen_ai.evaluation.result', timeUnixNano: eventTime, attributes: {} },
      statusCode: 0,
      statusMessage: '',
    });
    // An event time past 64 bits throws after the second span's list was copied (and after the
    // first span's link copied its trace id: no parent, its span id is encoded).
    expect(() => encodeEvaluationSpans([span(1n), span(2n ** 64n)], origin)).toThrow(RangeError);
    expect(repeat).toHaveBeenCalledTimes(1 + 1);
    // The same trace and list in the next request: encoded there, not copied from the last (its
    // link's trace id copied from its own span).
    const next = [span(1n)];
    expect(decodedTraceRequest(encodeEvaluationSpans(next, origin))).toEqual(sdkObject(next));
    expect(repeat).toHaveBeenCalledTimes(2 + 1);
  });

  it('keeps no place past 2 GiB, nor one a move takes past it: such lists are encoded', () => {
    // A writer as far along as a 2 GiB request, without the bytes: what it is asked, in order.
    const calls: string[] = [];
    let length = 0;
    const w = {
      get length() {
        return length;
      },
      tag: () => (length += 1),
      keyValue: () => (calls.push('keyValue'), (length += 10)),
      keyValues: () => calls.push('keyValues'),
      repeat: () => calls.push('repeat'),
      patch: () => undefined,
    } as unknown as ProtobufWriter;
    const list = ['lookup'];
    const attributes = { name: 'x', tools: list };
    const twoSpans = (moveBy = 0): string[] => {
      calls.length = 0;
      const parts = new WrittenSpanParts();
      parts.startSpan('t');
      parts.attributes(w, attributes);
      parts.eventAttributes(w, { name: 'x' }, attributes);
      parts.moved(0, moveBy);
      parts.startSpan('t');
      parts.attributes(w, attributes);
      return [...calls];
    };
    length = 2 ** 31 - 1_000;
    expect(twoSpans()).toEqual(['keyValue', 'keyValue', 'repeat', 'keyValue', 'repeat']);
    length = 2 ** 31 - 1_000;
    expect(twoSpans(1_000)).toEqual(['keyValue', 'keyValue', 'repeat', 'keyValue', 'keyValue']);
    length = 2 ** 31 + 5;
    expect(twoSpans()).toEqual(['keyValue', 'keyValue', 'keyValues', 'keyValue', 'keyValue']);
  });

  it('keeps at most 8 lists a trace: the ninth is encoded each time', () => {
    const keyValue = vi.spyOn(ProtobufWriter.prototype, 'keyValue');
    const lists = Array.from({ length: 9 }, (_, i) => [`tool_${i}`]);
    const attributes = Object.fromEntries(lists.map((l, i) => [`list.${i}`, l]));
    const spans: EvaluationSpan[] = [1, 2].map(n => ({
      traceId: 'c'.repeat(32),
      spanId: `${n}`.repeat(16),
      parentSpanId: '',
      name: 'evaluation x',
      startTimeUnixNano: 1n,
      endTimeUnixNano: 2n,
      attributes,
      link: { traceId: 'c'.repeat(32), spanId: 'aaaaaaaaaaaaaaaa' },
      turnLinks: [],
      event: { name: 'gen_ai.evaluation.result', timeUnixNano: 2n, attributes: {} },
      statusCode: 0,
      statusMessage: '',
    }));
    expect(decodedTraceRequest(encodeEvaluationSpans(spans, origin))).toEqual(sdkObject(spans));
    // service.name, link.type twice, the 9 lists of the first span and the ninth of the second.
    expect(keyValue).toHaveBeenCalledTimes(1 + 2 + 9 + 1);
  });
});
