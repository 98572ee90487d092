/**
 * Logfire's OpenAI Agents integration: "Function: <name>" spans; an events attribute on the model span.
 * HAND-BUILT: written from the sources cited in ../shared/reference/otel-tool-conventions.md §2.
 */
import { spanId, traceId, type SpanInput } from '../../test/helpers/otlp-json-builder.js';
import { j } from './json.js';

const t = traceId(109);
const s = (n: number): string => spanId(109, n);
const spans: SpanInput[] = [
  {
    traceId: t,
    spanId: s(1),
    name: 'Agent workflow',
    scope: 'logfire.openai_agents',
    startMs: 0,
    endMs: 50,
    attributes: { 'logfire.msg_template': 'Agent workflow', 'test_case.id': 'logfire' },
  },
  {
    traceId: t,
    spanId: s(2),
    parentSpanId: s(1),
    name: 'Responses API with gpt-4o',
    scope: 'logfire.openai_agents',
    startMs: 1,
    endMs: 10,
    attributes: {
      'gen_ai.system': 'openai',
      events: j([
        { 'event.name': 'gen_ai.user.message', content: 'Weather in Tokyo?', role: 'user' },
        {
          'event.name': 'gen_ai.choice',
          index: 0,
          message: {
            role: 'assistant',
            tool_calls: [
              {
                id: 'call_lf_1',
                type: 'function',
                function: { name: 'get_weather', arguments: j({ city: 'Tokyo' }) },
              },
            ],
          },
        },
      ]),
    },
  },
  {
    traceId: t,
    spanId: s(3),
    parentSpanId: s(1),
    name: 'Function: get_weather',
    scope: 'logfire.openai_agents',
    startMs: 11,
    endMs: 15,
    attributes: {
      'logfire.msg_template': 'Function: {name}',
      name: 'get_weather',
      input: j({ city: 'Tokyo' }),
      output: 'rainy',
    },
  },
];

/** The `hand-logfire` fixture. */
export const fixture = { name: 'hand-logfire', spans };
