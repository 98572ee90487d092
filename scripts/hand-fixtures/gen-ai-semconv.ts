/**
 * OTel GenAI semconv v1.38: invoke_agent → chat (requests) → execute_tool → chat.
 * HAND-BUILT: written from the sources cited in ../shared/reference/otel-tool-conventions.md §2.
 */
import { spanId, traceId, type SpanInput } from '../../test/helpers/otlp-json-builder.js';
import { j } from './json.js';

const t = traceId(101);
const s = (n: number): string => spanId(101, n);
const spans: SpanInput[] = [
  {
    traceId: t,
    spanId: s(1),
    name: 'invoke_agent weather-agent',
    startMs: 0,
    endMs: 100,
    attributes: {
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'weather-agent',
      'spanscore.test_case.id': 'gen-ai-semconv',
      'gen_ai.input.messages': j([
        { role: 'user', parts: [{ type: 'text', content: 'Weather and time in Paris?' }] },
      ]),
      'gen_ai.output.messages': j([
        {
          role: 'assistant',
          parts: [{ type: 'text', content: 'Sunny, 21°C. The time lookup failed.' }],
          finish_reason: 'stop',
        },
      ]),
    },
  },
  {
    traceId: t,
    spanId: s(2),
    parentSpanId: s(1),
    name: 'chat gpt-4o',
    kind: 3,
    startMs: 1,
    endMs: 10,
    attributes: {
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'gpt-4o',
      'gen_ai.output.messages': j([
        {
          role: 'assistant',
          parts: [
            {
              type: 'tool_call',
              id: 'call_1',
              name: 'get_weather',
              arguments: { location: 'Paris' },
            },
            {
              type: 'tool_call',
              id: 'call_2',
              name: 'functions.lookup-time',
              arguments: { tz: 'Europe/Paris' },
            },
          ],
          finish_reason: 'tool_call',
        },
      ]),
    },
  },
  {
    traceId: t,
    spanId: s(3),
    parentSpanId: s(1),
    name: 'execute_tool get_weather',
    startMs: 11,
    endMs: 20,
    attributes: {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'get_weather',
      'gen_ai.tool.call.id': 'call_1',
      'gen_ai.tool.call.arguments': j({ location: 'Paris' }),
      'gen_ai.tool.call.result': j({ temperature: 21, condition: 'sunny' }),
    },
  },
  {
    traceId: t,
    spanId: s(4),
    parentSpanId: s(1),
    name: 'execute_tool functions.lookup-time',
    startMs: 21,
    endMs: 30,
    status: { code: 2, message: 'time service timed out' },
    attributes: {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'functions.lookup-time',
      'gen_ai.tool.call.id': 'call_2',
      'gen_ai.tool.call.arguments': { tz: 'Europe/Paris' },
      'error.type': 'TimeoutError',
    },
  },
  {
    traceId: t,
    spanId: s(5),
    parentSpanId: s(1),
    name: 'chat gpt-4o',
    kind: 3,
    startMs: 31,
    endMs: 40,
    attributes: {
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'gpt-4o',
      'gen_ai.input.messages': j([
        { role: 'user', parts: [{ type: 'text', content: 'Weather and time in Paris?' }] },
        {
          role: 'assistant',
          parts: [
            {
              type: 'tool_call',
              id: 'call_1',
              name: 'get_weather',
              arguments: { location: 'Paris' },
            },
          ],
        },
        {
          role: 'tool',
          parts: [{ type: 'tool_call_response', id: 'call_1', response: 'sunny' }],
        },
      ]),
      'gen_ai.output.messages': j([
        {
          role: 'assistant',
          parts: [{ type: 'text', content: 'Sunny, 21°C. The time lookup failed.' }],
          finish_reason: 'stop',
        },
      ]),
    },
  },
];

/** The `hand-gen-ai-semconv` fixture. */
export const fixture = { name: 'hand-gen-ai-semconv', spans };
