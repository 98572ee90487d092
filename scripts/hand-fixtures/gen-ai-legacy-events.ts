/**
 * The deprecated GenAI per-message span events (semconv ≤1.36), as older Google ADK and
 * OpenLLMetry-instrumented Python agents emit them with no executed tool span of their own: a
 * `gen_ai.choice` event whose message carries OpenAI-shaped `tool_calls` (arguments as a JSON
 * string), a `gen_ai.tool.message` event carrying the result by call id, and a second request in
 * a `gen_ai.assistant.message` event as Bedrock `toolUse` blocks, never executed.
 * HAND-BUILT: written from the OTel GenAI event conventions v1.36 (gen_ai.choice,
 * gen_ai.assistant.message, gen_ai.tool.message) cited in ../shared/reference/otel-tool-conventions.md §2.
 */
import { spanId, traceId, type SpanInput } from '../../test/helpers/otlp-json-builder.js';
import { j } from './json.js';

const t = traceId(140);
const s = (n: number): string => spanId(140, n);
const spans: SpanInput[] = [
  {
    traceId: t,
    spanId: s(1),
    name: 'invoke_agent trip-planner',
    startMs: 0,
    endMs: 60,
    attributes: { 'gen_ai.operation.name': 'invoke_agent', 'test_case.id': 'gen-ai-legacy-events' },
  },
  {
    traceId: t,
    spanId: s(2),
    parentSpanId: s(1),
    name: 'chat gpt-4o-mini',
    kind: 3,
    startMs: 1,
    endMs: 20,
    attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o-mini' },
    events: [
      {
        name: 'gen_ai.choice',
        atMs: 19,
        attributes: {
          'gen_ai.system': 'openai',
          index: 0,
          finish_reason: 'tool_calls',
          message: j({
            role: 'assistant',
            tool_calls: [
              {
                id: 'call_fl_1',
                type: 'function',
                function: { name: 'search_flights', arguments: j({ from: 'OSL', to: 'LIS' }) },
              },
            ],
          }),
        },
      },
    ],
  },
  {
    traceId: t,
    spanId: s(3),
    parentSpanId: s(1),
    name: 'chat gpt-4o-mini',
    kind: 3,
    startMs: 30,
    endMs: 50,
    attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o-mini' },
    events: [
      {
        name: 'gen_ai.tool.message',
        atMs: 30,
        attributes: {
          'gen_ai.system': 'openai',
          id: 'call_fl_1',
          content: j([{ flight: 'TP753', price: 129 }]),
        },
      },
      {
        name: 'gen_ai.assistant.message',
        atMs: 49,
        attributes: {
          'gen_ai.system': 'aws.bedrock',
          content: j([
            {
              toolUse: {
                toolUseId: 'tooluse_hotel_1',
                name: 'book_hotel',
                input: { city: 'Lisbon', nights: 3 },
              },
            },
          ]),
        },
      },
    ],
  },
];

/** The `hand-gen-ai-legacy-events` fixture. */
export const fixture = { name: 'hand-gen-ai-legacy-events', spans };
