import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { field, varint } from '../../test/helpers/protobuf-bytes.js';
import { hrToNanos, recordingProvider } from '../../test/helpers/sdk-spans.js';
import { isSpanscoreError } from '../errors/spanscore-error.js';
import { decodeOtlpJson } from './decode-otlp-json.js';
import { decodeOtlpProtobuf } from './decode-otlp-protobuf.js';
import { attributesFor, readAttributes } from './read-attributes.js';
import { KEPT_VIEW_BYTES, viewedBytes } from './buffer-view.js';
import { WireSpanDigest } from './wire-span-digest.js';

function sdkSpans() {
  const { provider, spans } = recordingProvider('proto-check');
  const tracer = provider.getTracer('spanscore-test-scope', '1.2.3');
  const root = tracer.startSpan('invoke_agent planner', { kind: SpanKind.SERVER });
  const ctx = trace.setSpan(context.active(), root);
  const child = tracer.startSpan(
    'execute_tool get_weather',
    {
      kind: SpanKind.INTERNAL,
      attributes: {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'get_weather',
        'gen_ai.tool.call.arguments': '{"city":"Paris"}',
        'a.bool': true,
        'a.int': 42,
        'a.negative': -7,
        'a.double': 3.25,
        'a.strings': ['x', 'y'],
        'a.ints': [1, 2, 3],
        'a.unicode': 'Zürich ☀️',
      },
    },
    ctx,
  );
  child.addEvent('gen_ai.tool.message', { content: '{"expression":"2+2"}', id: 'tu_1' });
  child.setStatus({ code: SpanStatusCode.ERROR, message: 'tool failed' });
  child.end();
  const client = tracer.startSpan(
    'chat gpt-4o',
    { kind: SpanKind.CLIENT, attributes: { big: 2 ** 40 } },
    ctx,
  );
  client.setStatus({ code: SpanStatusCode.OK });
  client.end();
  root.end();
  return spans();
}

describe('decodeOtlpProtobuf', () => {
  it('reads every field scoring uses exactly as the OTel SDK serializes it', () => {
    const spans = sdkSpans();
    const decoded = decodeOtlpProtobuf(ProtobufTraceSerializer.serializeRequest(spans)!);
    expect(decoded.rejected).toEqual([]);
    expect(decoded.spans).toHaveLength(spans.length);
    for (const sdk of spans) {
      const got = decoded.spans.find(s => s.spanId === sdk.spanContext().spanId)!;
      expect(got.traceId).toBe(sdk.spanContext().traceId);
      expect(got.parentSpanId).toBe(sdk.parentSpanContext?.spanId ?? '');
      expect(got.name).toBe(sdk.name);
      expect(got.kind).toBe(sdk.kind + 1); // the API's enum starts at INTERNAL = 0, OTLP's at UNSPECIFIED = 0
      expect(got.startTimeUnixNano).toBe(hrToNanos(sdk.startTime));
      expect(got.endTimeUnixNano).toBe(hrToNanos(sdk.endTime));
      expect(got.statusCode).toBe(sdk.status.code);
      expect(got.statusMessage).toBe(sdk.status.message ?? '');
      expect(got.serviceName).toBe('proto-check');
      expect(got.scopeName).toBe('spanscore-test-scope');
      expect(got.attributes).toEqual(sdk.attributes);
      expect(
        got.events.map(e => ({ name: e.name, attributes: e.attributes, t: e.timeUnixNano })),
      ).toEqual(
        sdk.events.map(e => ({ name: e.name, attributes: e.attributes, t: hrToNanos(e.time) })),
      );
    }
  });

  it('gives the same digests as the JSON decoder on the JSON form of the same spans', () => {
    const spans = sdkSpans();
    const fromProto = decodeOtlpProtobuf(ProtobufTraceSerializer.serializeRequest(spans)!);
    const json = JSON.parse(
      new TextDecoder().decode(JsonTraceSerializer.serializeRequest(spans)),
    ) as unknown;
    expect(decodeOtlpJson(json)).toEqual(fromProto);
  });

  it('gives each span its own ids when traces interleave and ids repeat from span to span', () => {
    const { provider, spans } = recordingProvider('interleaved');
    const tracer = provider.getTracer('t');
    const roots = [0, 1, 2].map(i => tracer.startSpan(`root ${i}`));
    for (let k = 0; k < 12; k++) {
      const root = roots[k % 3 === 2 ? 2 : k % 2]!;
      tracer.startSpan(`child ${k}`, {}, trace.setSpan(context.active(), root)).end();
    }
    for (const root of roots) root.end();
    const fromProto = decodeOtlpProtobuf(ProtobufTraceSerializer.serializeRequest(spans())!);
    expect(fromProto.spans.map(s => [s.name, s.traceId, s.spanId, s.parentSpanId])).toEqual(
      spans().map(s => [
        s.name,
        s.spanContext().traceId,
        s.spanContext().spanId,
        s.parentSpanContext?.spanId ?? '',
      ]),
    );
  });

  it('keeps attributes in wire form until read, and then they behave as on any digest', () => {
    const decoded = decodeOtlpProtobuf(ProtobufTraceSerializer.serializeRequest(sdkSpans())!);
    const tool = decoded.spans.find(s => s.name === 'execute_tool get_weather') as WireSpanDigest;
    expect(tool).toBeInstanceOf(WireSpanDigest);
    expect(tool.attributeRecords()).toBeDefined();
    // An own enumerable property: a spread copies it (reading it), as Object.keys lists it.
    expect(Object.keys(tool)).toContain('attributes');
    const copy = { ...tool };
    expect(copy.attributes['gen_ai.tool.name']).toBe('get_weather');
    expect(tool.attributeRecords()).toBeUndefined();
    expect(tool.attributes).toBe(copy.attributes);
    tool.attributes = { replaced: true };
    expect(tool.attributes).toEqual({ replaced: true });
  });

  it('keeps no view of the request body once decoded, and of a span’s records only a small one', () => {
    // The decoders read through a DataView of the buffer (bufferView): it must not hold a request
    // body past its decoding, nor a large records buffer past a span's read.
    const body = Buffer.from(ProtobufTraceSerializer.serializeRequest(sdkSpans())!);
    const decoded = decodeOtlpProtobuf(body);
    expect(viewedBytes()).toBe(0);
    // The spans' records are still the body's: reading them views it, and lets it go after.
    const tool = decoded.spans.find(s => s.name === 'execute_tool get_weather') as WireSpanDigest;
    expect(readAttributes(tool)['gen_ai.tool.name']).toBe('get_weather');
    expect(body.length).toBeLessThanOrEqual(KEPT_VIEW_BYTES);
    expect(viewedBytes()).toBe(body.length);
    // A body past KEPT_VIEW_BYTES (padding in a field the decoder skips) is let go at once.
    const padded = Buffer.concat([body, Buffer.from([0xfa, 0x3e]), varint(KEPT_VIEW_BYTES)]);
    const large = Buffer.concat([padded, Buffer.alloc(KEPT_VIEW_BYTES, 0x61)]);
    const spans = decodeOtlpProtobuf(large).spans;
    expect(viewedBytes()).toBe(0);
    for (const span of spans) readAttributes(span);
    expect(spans.find(s => s.name === 'execute_tool get_weather')!.attributes).toMatchObject({
      'gen_ai.tool.name': 'get_weather',
    });
    expect(viewedBytes()).toBe(0);
  });

  it('hands spanscore’s readers the attributes but the unread families, which stay bytes', () => {
    const { provider, spans } = recordingProvider('unread');
    const tracer = provider.getTracer('t');
    tracer
      .startSpan('chat gpt-4o', {
        attributes: {
          'gen_ai.request.model': 'gpt-4o',
          'gen_ai.usage.input_tokens': 812,
          'http.response.status_code': 200,
        },
      })
      .end();
    tracer.startSpan('execute_tool x', { attributes: { 'gen_ai.tool.name': 'x' } }).end();
    const body = ProtobufTraceSerializer.serializeRequest(spans())!;
    const [chat, tool] = decodeOtlpProtobuf(body).spans as WireSpanDigest[];
    const read = readAttributes(chat!);
    expect({ ...read }).toEqual({ 'gen_ai.request.model': 'gpt-4o' });
    expect(readAttributes(chat!)).toBe(read); // decoded once
    expect(chat!.attributeRecords()).toBeDefined(); // the records stay, for the whole attributes
    expect(chat!.attributes).toEqual({
      'gen_ai.request.model': 'gpt-4o',
      'gen_ai.usage.input_tokens': 812,
      'http.response.status_code': 200,
    });
    expect(readAttributes(chat!)).toBe(chat!.attributes); // once whole, the whole is read
    // Nothing left out: what the readers got is the whole attributes, decoded once.
    const all = readAttributes(tool!);
    expect(tool!.attributeRecords()).toBeUndefined();
    expect(tool!.attributes).toBe(all);
    // A key from configuration in an unread family is read from the whole attributes.
    const [again] = decodeOtlpProtobuf(body).spans;
    expect(attributesFor(again!, 'gen_ai.request.model')).not.toHaveProperty(
      'gen_ai.usage.input_tokens',
    );
    expect(attributesFor(again!, 'http.response.status_code')['http.response.status_code']).toBe(
      200,
    );
  });

  it('gives spans the scope and resource that come after them on the wire', () => {
    // ResourceSpans{scope_spans{spans[span], scope{name}}, resource{service.name}}, by hand.
    const len = (bytes: number[]) => [bytes.length, ...bytes];
    const str = (field: number, text: string) => [(field << 3) | 2, ...len([...Buffer.from(text)])];
    const span = [
      0x0a,
      ...len(new Array<number>(16).fill(1)),
      0x12,
      ...len(new Array<number>(8).fill(2)),
      ...str(5, 'late'),
    ];
    const scopeSpans = [0x12, ...len(span), 0x0a, ...len(str(1, 'late-scope'))];
    const serviceName = [...str(1, 'service.name'), 0x12, ...len(str(1, 'late-svc'))];
    const resource = [0x0a, ...len(serviceName)];
    const resourceSpans = [0x12, ...len(scopeSpans), 0x0a, ...len(resource)];
    const out = decodeOtlpProtobuf(Uint8Array.from([0x0a, ...len(resourceSpans)]));
    expect(out.spans.map(s => [s.name, s.scopeName, s.serviceName])).toEqual([
      ['late', 'late-scope', 'late-svc'],
    ]);
  });

  it('decodes an empty request to nothing', () => {
    expect(decodeOtlpProtobuf(new Uint8Array(0))).toEqual({
      spans: [],
      rejected: [],
      rejectedCount: 0,
    });
  });

  it('throws SS_TRACE_INPUT_INVALID with the byte offset when a length runs past the end', () => {
    const bytes = ProtobufTraceSerializer.serializeRequest(sdkSpans())!;
    const truncated = bytes.subarray(0, bytes.length - 5);
    let error: unknown;
    try {
      decodeOtlpProtobuf(truncated);
    } catch (e) {
      error = e;
    }
    expect(isSpanscoreError(error) && error.code).toBe('SS_TRACE_INPUT_INVALID');
    expect((error as Error).message).toMatch(
      /invalid protobuf at byte \d+: length \d+ runs past the end/,
    );
  });

  it('rejects only the span whose id has the wrong length', () => {
    // ExportTraceServiceRequest{resource_spans{scope_spans{spans: [bad, good]}}}, written by hand.
    const span = (traceId: number[], spanId: number[], name: string): number[] => [
      0x0a,
      traceId.length,
      ...traceId,
      0x12,
      spanId.length,
      ...spanId,
      0x2a,
      name.length,
      ...Buffer.from(name),
    ];
    const bad = span(new Array<number>(16).fill(1), [1, 2, 3], 'bad');
    const good = span(new Array<number>(16).fill(1), new Array<number>(8).fill(2), 'good');
    const scope = [0x12, bad.length, ...bad, 0x12, good.length, ...good];
    const rs = [0x12, scope.length, ...scope];
    const req = Uint8Array.from([0x0a, rs.length, ...rs]);
    const out = decodeOtlpProtobuf(req);
    expect(out.spans.map(s => s.name)).toEqual(['good']);
    expect(out.rejected).toEqual([
      {
        path: 'resourceSpans[0].scopeSpans[0].spans[0]',
        reason: 'spanId: expected 8 bytes, got 3',
      },
    ]);
  });

  it('fuzz: random bytes either decode or throw SS_TRACE_INPUT_INVALID, never anything else', () => {
    let runs = 0;
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 512 }), bytes => {
        runs++;
        try {
          decodeOtlpProtobuf(bytes);
        } catch (error) {
          if (!isSpanscoreError(error) || error.code !== 'SS_TRACE_INPUT_INVALID') throw error;
        }
      }),
      { numRuns: 3000 },
    );
    expect(runs).toBe(3000);
  });

  it('refuses a span whose attribute record holds a field running past the record, and keeps the others', () => {
    // A request written by hand: two spans, the first with the attribute record `0a 02` (a key
    // 2 bytes long, and the record ends there). Read in place, its key would be the span's next
    // field (`2a 00`, an empty name); moved to a buffer of its own, the bytes past the end.
    const span = (id: number, attributes: Buffer): Buffer =>
      Buffer.concat([
        field(1, Buffer.alloc(16, 0xab)),
        field(2, Buffer.from([0, 0, 0, 0, 0, 0, 0, id])),
        attributes,
        field(5, Buffer.alloc(0)),
      ]);
    const goodRecord = Buffer.concat([
      field(1, Buffer.from('k')),
      field(2, field(1, Buffer.from('v'))),
    ]);
    const body = field(
      1,
      field(
        2,
        Buffer.concat([
          field(2, span(1, field(9, Buffer.from([0x0a, 0x02])))),
          field(2, span(2, field(9, goodRecord))),
        ]),
      ),
    );
    const out = decodeOtlpProtobuf(body);
    expect(out.spans.map(s => [s.spanId, s.attributes])).toEqual([
      ['0000000000000002', { k: 'v' }],
    ]);
    expect(out.rejected).toEqual([
      {
        path: 'resourceSpans[0].scopeSpans[0].spans[0]',
        reason: 'attribute: a field runs 2 bytes past the end of the record or value holding it',
      },
    ]);
  });

  it('fuzz: valid requests with mutated or truncated bytes never escape as other errors', () => {
    const valid = ProtobufTraceSerializer.serializeRequest(sdkSpans())!;
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat({ max: valid.length - 1 }), fc.integer({ min: 0, max: 255 })), {
          maxLength: 8,
        }),
        fc.nat({ max: valid.length }),
        (mutations, cut) => {
          const bytes = Uint8Array.from(valid.subarray(0, cut));
          for (const [at, value] of mutations) if (at < bytes.length) bytes[at] = value;
          try {
            const out = decodeOtlpProtobuf(bytes);
            // The same request again, its spans' records moved to buffers of their own, as the
            // memory driver holds them: they read back as in place, never otherwise, never throwing.
            const moved = decodeOtlpProtobuf(bytes).spans.map(span => {
              if (span instanceof WireSpanDigest)
                span.moveRecords(Buffer.alloc(span.recordsLength()), 0);
              return span;
            });
            out.spans.forEach((s, i) => {
              expect(s.traceId).toMatch(/^[0-9a-f]{32}$/);
              // Attributes checked on arrival read back later without an error.
              expect(typeof s.attributes).toBe('object');
              expect(moved[i]!.attributes).toEqual(s.attributes);
            });
          } catch (error) {
            if (!isSpanscoreError(error)) throw error;
          }
        },
      ),
      { numRuns: 3000 },
    );
  });
});
