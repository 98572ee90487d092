import { context, trace, TraceFlags } from '@opentelemetry/api';
import { JsonLogsSerializer, ProtobufLogsSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  InMemoryLogRecordExporter,
  LoggerProvider,
  SimpleLogRecordProcessor,
  type ReadableLogRecord,
} from '@opentelemetry/sdk-logs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isSpanscoreError } from '../errors/spanscore-error.js';
import { decodeOtlpJsonLogs } from './decode-otlp-logs-json.js';
import { decodeOtlpProtobufLogs } from './decode-otlp-logs-protobuf.js';
import { isLogEventCarrier, NO_SPAN_ID, type DecodedLogs } from './log-event-carrier.js';

const TRACE = '0af7651916cd43dd8448eb211c80319c';
const SPAN = 'b7ad6b7169203331';

/** Records emitted through the real logs SDK, as an instrumentation emits them. */
function records(): ReadableLogRecord[] {
  const exporter = new InMemoryLogRecordExporter();
  const provider = new LoggerProvider({
    resource: resourceFromAttributes({ 'service.name': 'agent', 'service.version': '1.2.0' }),
    processors: [new SimpleLogRecordProcessor({ exporter })],
  });
  const logger = provider.getLogger('@opentelemetry/instrumentation-openai', '0.21.0');
  const inSpan = trace.setSpanContext(context.active(), {
    traceId: TRACE,
    spanId: SPAN,
    traceFlags: TraceFlags.SAMPLED,
  });
  // The event name as the record's own field (OTLP 1.5+)…
  logger.emit({
    eventName: 'gen_ai.choice',
    context: inSpan,
    timestamp: [1_700_000_000, 5],
    body: {
      index: 0,
      finish_reason: 'tool_calls',
      message: {
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{}' } },
        ],
      },
    },
    attributes: { 'gen_ai.system': 'openai' },
  });
  // …and as the `event.name` attribute (older SDKs and instrumentations).
  logger.emit({
    context: inSpan,
    body: { id: 'call_1', content: '{"temperatureC":18}' },
    attributes: { 'event.name': 'gen_ai.tool.message', 'gen_ai.system': 'openai' },
  });
  // Dropped: an application log line, an evaluation result, a GenAI event outside any trace.
  logger.emit({ body: 'connected to the database', severityText: 'INFO', context: inSpan });
  logger.emit({
    eventName: 'gen_ai.evaluation.result',
    context: inSpan,
    attributes: { 'gen_ai.evaluation.name': 'relevance' },
  });
  logger.emit({ eventName: 'gen_ai.choice', body: { index: 0 } });
  return exporter.getFinishedLogRecords();
}

const RECORDS = records();
const decoders: Array<[string, () => DecodedLogs]> = [
  [
    'JSON',
    () =>
      decodeOtlpJsonLogs(
        JSON.parse(new TextDecoder().decode(JsonLogsSerializer.serializeRequest(RECORDS))),
      ),
  ],
  ['protobuf', () => decodeOtlpProtobufLogs(ProtobufLogsSerializer.serializeRequest(RECORDS)!)],
];

describe.each(decoders)('decoding an OTLP logs request (%s)', (_format, decode) => {
  it('keeps the GenAI events with a trace id as carriers and counts the rest as dropped', () => {
    const out = decode();
    expect(out.records).toBe(5);
    expect(out.dropped).toEqual({ not_gen_ai: 1, evaluation: 1, no_trace_id: 1 });
    expect(out.rejectedCount).toBe(0);
    expect(out.spans.map(s => s.name)).toEqual(['gen_ai.choice', 'gen_ai.tool.message']);
    for (const carrier of out.spans) {
      expect(isLogEventCarrier(carrier)).toBe(true);
      expect(carrier.traceId).toBe(TRACE);
      expect(carrier.kind).toBe(1);
      expect(carrier.startTimeUnixNano).toBe(carrier.endTimeUnixNano);
      expect(carrier.serviceName).toBe('agent');
      expect(carrier.serviceVersion).toBe('1.2.0');
      expect(carrier.scopeName).toBe('@opentelemetry/instrumentation-openai');
      expect(carrier.spanId).toMatch(/^[0-9a-f]{16}$/);
    }
    const [choice, tool] = out.spans;
    expect(choice!.parentSpanId).toBe(SPAN);
    expect(choice!.startTimeUnixNano).toBe(1_700_000_000_000_000_005n);
    expect(choice!.attributes['gen_ai.system']).toBe('openai');
    expect(choice!.attributes.body).toEqual({
      index: 0,
      finish_reason: 'tool_calls',
      message: {
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{}' } },
        ],
      },
    });
    expect(tool!.attributes['event.name']).toBe('gen_ai.tool.message');
    expect(tool!.attributes.body).toEqual({ id: 'call_1', content: '{"temperatureC":18}' });
  });

  it('gives a record sent twice the same carrier id, and different records different ids', () => {
    const first = decode().spans.map(s => s.spanId);
    expect(decode().spans.map(s => s.spanId)).toEqual(first);
    expect(new Set(first).size).toBe(first.length);
  });
});

describe('decoding malformed OTLP logs', () => {
  it("gives a record with a trace id but no span id OTLP's invalid span id as its parent", () => {
    const out = decodeOtlpJsonLogs({
      resourceLogs: [
        {
          scopeLogs: [
            {
              logRecords: [
                {
                  attributes: [
                    { key: 'event.name', value: { stringValue: 'gen_ai.user.message' } },
                  ],
                  traceId: TRACE,
                  spanId: '',
                  observedTimeUnixNano: '7',
                },
              ],
            },
          ],
        },
      ],
    });
    // Never '': a carrier must not look like the root span that ends a trace.
    expect(out.spans.map(s => [s.parentSpanId, s.startTimeUnixNano])).toEqual([[NO_SPAN_ID, 7n]]);
  });

  it('refuses one record with a malformed span id, with its path, and keeps the others', () => {
    const record = (spanId: string) => ({
      eventName: 'gen_ai.choice',
      traceId: TRACE,
      spanId,
      body: { kvlistValue: { values: [{ key: 'index', value: { intValue: '0' } }] } },
    });
    const out = decodeOtlpJsonLogs({
      resourceLogs: [{ scopeLogs: [{ logRecords: [record('xyz'), record(SPAN)] }] }],
    });
    expect(out.spans).toHaveLength(1);
    expect(out.spans[0]!.attributes.body).toEqual({ index: 0 });
    expect(out.rejected).toEqual([
      {
        path: 'resourceLogs[0].scopeLogs[0].logRecords[0].spanId',
        reason: 'expected 16 hex characters, got "xyz"',
      },
    ]);
  });

  it('refuses a request past the record limit whole, kept or dropped records alike', () => {
    const logRecords = Array.from({ length: 3 }, () => ({ body: { stringValue: 'log line' } }));
    expect(() =>
      decodeOtlpJsonLogs(
        { resourceLogs: [{ scopeLogs: [{ logRecords }] }] },
        { maxSpans: 2, maxItems: 1000, maxRejectedDetails: 5 },
      ),
    ).toThrow(/more than 2 log records/);
  });

  it('names what is wrong with a body that is no logs export', () => {
    expect(() => decodeOtlpJsonLogs({ resourceLogs: {} })).toThrow(
      expect.objectContaining({
        code: 'SS_TRACE_INPUT_INVALID',
        location: { path: 'resourceLogs' },
      }) as Error,
    );
  });

  it('fuzz: random bytes either decode or throw SS_TRACE_INPUT_INVALID, never anything else', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 512 }), bytes => {
        try {
          decodeOtlpProtobufLogs(bytes);
        } catch (error) {
          if (!isSpanscoreError(error) || error.code !== 'SS_TRACE_INPUT_INVALID') throw error;
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('fuzz: a real request with mutated or truncated bytes keeps only well-formed carriers', () => {
    const valid = ProtobufLogsSerializer.serializeRequest(records())!;
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
            const out = decodeOtlpProtobufLogs(bytes);
            for (const s of out.spans) {
              expect(s.traceId).toMatch(/^[0-9a-f]{32}$/);
              expect(s.parentSpanId).toMatch(/^[0-9a-f]{16}$/);
              expect(s.name.startsWith('gen_ai.')).toBe(true);
            }
          } catch (error) {
            if (!isSpanscoreError(error)) throw error;
          }
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('fuzz: any JSON value either decodes or throws SS_TRACE_INPUT_INVALID', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), value => {
        try {
          decodeOtlpJsonLogs({ resourceLogs: [{ scopeLogs: [{ logRecords: [value] }] }] });
          decodeOtlpJsonLogs(value);
        } catch (error) {
          if (!isSpanscoreError(error) || error.code !== 'SS_TRACE_INPUT_INVALID') throw error;
        }
      }),
      { numRuns: 2000 },
    );
  });
});
