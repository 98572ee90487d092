/**
 * Mastra `@mastra/otel-exporter`: tool_call and mcp_tool_call spans; requests on MODEL_GENERATION.
 * HAND-BUILT: written from the sources cited in ../shared/reference/otel-tool-conventions.md §2.
 */
import { spanId, traceId, type SpanInput } from '../../test/helpers/otlp-json-builder.js';
import { j } from './json.js';

const t = traceId(102);
const s = (n: number): string => spanId(102, n);
const spans: SpanInput[] = [
  {
    traceId: t,
    spanId: s(1),
    name: 'invoke_agent weatherAgent',
    scope: 'mastra',
    startMs: 0,
    endMs: 50,
    attributes: {
      'mastra.span.type': 'agent_run',
      'gen_ai.operation.name': 'invoke_agent',
      'test_case.id': 'mastra',
    },
  },
  {
    traceId: t,
    spanId: s(2),
    parentSpanId: s(1),
    name: 'chat gpt-4o-mini',
    scope: 'mastra',
    startMs: 1,
    endMs: 9,
    attributes: {
      'mastra.span.type': 'model_generation',
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'gpt-4o-mini',
      'gen_ai.output.messages': j([
        {
          role: 'assistant',
          parts: [
            {
              type: 'tool_call',
              id: 'call_m1',
              name: 'weatherTool',
              arguments: { city: 'Lima' },
            },
          ],
        },
      ]),
    },
  },
  {
    traceId: t,
    spanId: s(3),
    parentSpanId: s(1),
    name: 'execute_tool weatherTool',
    scope: 'mastra',
    startMs: 10,
    endMs: 20,
    attributes: {
      'mastra.span.type': 'tool_call',
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'weatherTool',
      'gen_ai.tool.call.id': 'call_m1',
      'gen_ai.tool.call.arguments': j({ city: 'Lima' }),
      'gen_ai.tool.call.result': j({ temp: 19 }),
      'gen_ai.tool.description': 'Get weather',
    },
  },
  {
    traceId: t,
    spanId: s(4),
    parentSpanId: s(1),
    name: 'execute_tool search_docs',
    scope: 'mastra',
    startMs: 21,
    endMs: 30,
    attributes: {
      'mastra.span.type': 'mcp_tool_call',
      'gen_ai.tool.name': 'search_docs',
      'server.address': 'docs',
      'gen_ai.tool.call.arguments': j({ q: 'climate' }),
    },
  },
];

/** The `hand-mastra` fixture. */
export const fixture = { name: 'hand-mastra', spans };
