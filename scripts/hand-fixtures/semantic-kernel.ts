/**
 * Semantic Kernel (Python): requests as gen_ai.choice events; execute_tool with Plugin-function names.
 * HAND-BUILT: written from the sources cited in ../shared/reference/otel-tool-conventions.md §2.
 */
import { spanId, traceId, type SpanInput } from '../../test/helpers/otlp-json-builder.js';
import { j } from './json.js';

const t = traceId(111);
const s = (n: number): string => spanId(111, n);
const spans: SpanInput[] = [
  {
    traceId: t,
    spanId: s(1),
    name: 'invoke_agent ForecastAgent',
    scope: 'semantic_kernel.agents',
    startMs: 0,
    endMs: 50,
    attributes: { 'gen_ai.operation.name': 'invoke_agent', 'test_case.id': 'semantic-kernel' },
  },
  {
    traceId: t,
    spanId: s(2),
    parentSpanId: s(1),
    name: 'chat.completions gpt-4o',
    scope: 'semantic_kernel.connectors.ai',
    startMs: 1,
    endMs: 9,
    attributes: {
      'gen_ai.operation.name': 'chat.completions',
      'gen_ai.request.model': 'gpt-4o',
      'gen_ai.response.finish_reason': 'tool_calls',
    },
    events: [
      {
        name: 'gen_ai.choice',
        atMs: 9,
        attributes: {
          'gen_ai.event.content': j({
            index: 0,
            message: {
              role: 'assistant',
              tool_calls: [
                {
                  id: 'call_sk_1',
                  type: 'function',
                  function: {
                    name: 'WeatherPlugin-get_forecast',
                    arguments: j({ city: 'Oslo' }),
                  },
                },
              ],
            },
            finish_reason: 'tool_calls',
          }),
        },
      },
    ],
  },
  {
    traceId: t,
    spanId: s(3),
    parentSpanId: s(1),
    name: 'execute_tool WeatherPlugin-get_forecast',
    scope: 'semantic_kernel.functions.kernel_function',
    startMs: 10,
    endMs: 20,
    attributes: {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'WeatherPlugin-get_forecast',
      'gen_ai.tool.call.id': 'call_sk_1',
      'gen_ai.tool.description': 'Get the forecast',
    },
  },
];

/** The `hand-semantic-kernel` fixture. */
export const fixture = { name: 'hand-semantic-kernel', spans };
