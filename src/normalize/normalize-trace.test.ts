import { describe, expect, it } from 'vitest';
import { decodeOtlpJson } from '../ingest/decode-otlp-json.js';
import { otlpRequest, spanId, traceId } from '../../test/helpers/otlp-json-builder.js';
import { normalizeTrace } from './normalize-trace.js';

const T = traceId(2);
const S = (n: number): string => spanId(2, n);
const tool = (n: number, name: string, startMs: number) => ({
  traceId: T,
  spanId: S(n),
  parentSpanId: S(1),
  name: `execute_tool ${name}`,
  startMs,
  endMs: startMs + 1,
  attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': name },
});

describe('normalizeTrace', () => {
  it('builds tools_used: canonical, deduped, first-call order, spelled as first seen after namespace stripping', () => {
    const spans = decodeOtlpJson(
      otlpRequest([
        { traceId: T, spanId: S(1), name: 'agent', startMs: 0, endMs: 100 },
        tool(2, 'functions.get_weather', 1),
        tool(3, 'weather-tool', 2),
        tool(4, 'getWeather', 3),
        tool(5, 'Weather Tool', 4),
      ]),
    ).spans;
    const trace = normalizeTrace(T, spans);
    expect(trace.toolsUsed).toEqual(['get_weather', 'weather-tool']);
    expect(trace.toolSequence.map(c => c.name)).toEqual([
      'get_weather',
      'weather-tool',
      'getWeather',
      'Weather Tool',
    ]);
  });

  it('finds the root even when the parent span is outside this trace part (a remote parent)', () => {
    const spans = decodeOtlpJson(
      otlpRequest([
        {
          traceId: T,
          spanId: S(1),
          parentSpanId: 'ffffffffffffffff',
          name: 'handler',
          startMs: 5,
          endMs: 9,
        },
        tool(2, 'x', 6),
      ]),
    ).spans;
    expect(normalizeTrace(T, spans).root?.name).toBe('handler');
  });

  it('takes the test case id from the first attribute in the list, preferring the root span', () => {
    const spans = decodeOtlpJson(
      otlpRequest([
        {
          traceId: T,
          spanId: S(1),
          name: 'agent',
          startMs: 0,
          endMs: 10,
          attributes: { 'test_case.id': 'from-root-low-priority' },
        },
        {
          traceId: T,
          spanId: S(2),
          parentSpanId: S(1),
          name: 'child',
          startMs: 1,
          endMs: 2,
          attributes: { 'spanscore.test_case.id': 'from-child' },
        },
      ]),
    ).spans;
    expect(normalizeTrace(T, spans).testCaseId).toBe('from-child');
    expect(normalizeTrace(T, spans, { testCaseIdAttributes: ['test_case.id'] }).testCaseId).toBe(
      'from-root-low-priority',
    );
  });

  it('reads the conversation: user input, assistant messages in order, final output', () => {
    const spans = decodeOtlpJson(
      otlpRequest([
        {
          traceId: T,
          spanId: S(1),
          name: 'invoke_agent',
          startMs: 0,
          endMs: 100,
          attributes: {
            'gen_ai.input.messages': JSON.stringify([
              { role: 'user', parts: [{ type: 'text', content: 'Plan my trip' }] },
            ]),
            'gen_ai.output.messages': JSON.stringify([
              { role: 'assistant', parts: [{ type: 'text', content: 'Trip planned.' }] },
            ]),
          },
        },
        {
          traceId: T,
          spanId: S(2),
          parentSpanId: S(1),
          name: 'chat',
          startMs: 1,
          endMs: 10,
          attributes: {
            'gen_ai.output.messages': JSON.stringify([
              { role: 'assistant', parts: [{ type: 'text', content: 'Let me look.' }] },
            ]),
          },
        },
        {
          traceId: T,
          spanId: S(3),
          parentSpanId: S(1),
          name: 'chat',
          startMs: 20,
          endMs: 30,
          attributes: {
            'gen_ai.output.messages': JSON.stringify([
              { role: 'assistant', parts: [{ type: 'text', content: 'Trip planned.' }] },
            ]),
          },
        },
      ]),
    ).spans;
    expect(normalizeTrace(T, spans).conversation).toEqual({
      userInput: 'Plan my trip',
      assistantMessages: ['Let me look.', 'Trip planned.'],
      finalOutput: 'Trip planned.',
    });
  });

  it('counts a tool span sent twice under one id once, its first copy, with or without agents', () => {
    const request = (n: number, startMs: number) => ({
      traceId: T,
      spanId: S(n),
      parentSpanId: S(1),
      name: 'chat',
      startMs,
      endMs: startMs + 1,
      attributes: {
        'gen_ai.output.messages': JSON.stringify([
          { role: 'assistant', parts: [{ type: 'tool_call', name: 'refund', arguments: {} }] },
        ]),
      },
    });
    const roots: Array<Record<string, string>> = [
      {},
      { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'r' },
    ];
    for (const root of roots) {
      // The copy starts earlier and names another tool: neither moves or renames the call.
      const spans = decodeOtlpJson(
        otlpRequest([
          { traceId: T, spanId: S(1), name: 'root', startMs: 0, endMs: 100, attributes: root },
          tool(2, 'search', 5),
          tool(2, 'delete_all', 1),
          request(3, 10),
          request(3, 10),
        ]),
      ).spans;
      const trace = normalizeTrace(T, spans);
      expect(trace.toolSequence.map(c => [c.name, c.source])).toEqual([
        ['search', 'executed'],
        ['refund', 'requested'],
      ]);
      expect(trace.toolsUsed).toEqual(['search', 'refund']);
    }
  });
});
