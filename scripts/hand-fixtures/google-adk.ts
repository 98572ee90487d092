/**
 * Google ADK: parallel calls under "execute_tool (merged tools)"; requests in llm_response.
 * HAND-BUILT: written from the sources cited in ../shared/reference/otel-tool-conventions.md §2.
 */
import { spanId, traceId, type SpanInput } from '../../test/helpers/otlp-json-builder.js';
import { j } from './json.js';

const t = traceId(105);
const s = (n: number): string => spanId(105, n);
const scope = 'gcp.vertex.agent';
const spans: SpanInput[] = [
  {
    traceId: t,
    spanId: s(1),
    name: 'invoke_agent weather_time_agent',
    scope,
    startMs: 0,
    endMs: 60,
    attributes: { 'gen_ai.operation.name': 'invoke_agent', 'test_case.id': 'google-adk' },
  },
  {
    traceId: t,
    spanId: s(2),
    parentSpanId: s(1),
    name: 'call_llm',
    scope,
    startMs: 1,
    endMs: 10,
    attributes: {
      'gen_ai.request.model': 'gemini-2.5-flash',
      'gcp.vertex.agent.llm_request': j({
        contents: [{ role: 'user', parts: [{ text: 'Weather and time in New York?' }] }],
      }),
      'gcp.vertex.agent.llm_response': j({
        content: {
          role: 'model',
          parts: [
            {
              function_call: { id: 'adk-fc-1', name: 'get_weather', args: { city: 'New York' } },
            },
            { function_call: { name: 'get_current_time', args: { city: 'New York' } } },
          ],
        },
      }),
    },
  },
  {
    traceId: t,
    spanId: s(3),
    parentSpanId: s(1),
    name: 'execute_tool (merged tools)',
    scope,
    startMs: 11,
    endMs: 30,
    attributes: {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': '(merged tools)',
      'gcp.vertex.agent.tool_call_args': 'N/A',
    },
  },
  {
    traceId: t,
    spanId: s(4),
    parentSpanId: s(3),
    name: 'execute_tool get_weather',
    scope,
    startMs: 12,
    endMs: 20,
    attributes: {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'get_weather',
      'gen_ai.tool.call.id': 'adk-fc-1',
      'gen_ai.tool.type': 'FunctionTool',
      'gcp.vertex.agent.tool_call_args': j({ city: 'New York' }),
      'gcp.vertex.agent.tool_response': j({ result: 'sunny, 25°C' }),
    },
  },
  {
    traceId: t,
    spanId: s(5),
    parentSpanId: s(3),
    name: 'execute_tool get_current_time',
    scope,
    startMs: 13,
    endMs: 21,
    attributes: {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'get_current_time',
      'gen_ai.tool.call.id': '<not specified>',
      'gcp.vertex.agent.tool_call_args': j({ city: 'New York' }),
      'gcp.vertex.agent.tool_response': j({ status: 'success', report: '10:30' }),
    },
  },
];

/** The `hand-google-adk` fixture. */
export const fixture = { name: 'hand-google-adk', spans };
