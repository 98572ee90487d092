/**
 * LangSmith OTel exporter: tool run span with gen_ai.prompt / gen_ai.completion; llm run with tool_calls.
 * HAND-BUILT: written from the sources cited in ../shared/reference/otel-tool-conventions.md §2.
 */
import { spanId, traceId, type SpanInput } from '../../test/helpers/otlp-json-builder.js';
import { j } from './json.js';

const t = traceId(108);
const s = (n: number): string => spanId(108, n);
const spans: SpanInput[] = [
  {
    traceId: t,
    spanId: s(1),
    name: 'AgentExecutor',
    scope: 'langsmith',
    startMs: 0,
    endMs: 50,
    attributes: { 'langsmith.span.kind': 'chain', 'test_case.id': 'langsmith' },
  },
  {
    traceId: t,
    spanId: s(2),
    parentSpanId: s(1),
    name: 'ChatOpenAI',
    scope: 'langsmith',
    startMs: 1,
    endMs: 10,
    attributes: {
      'langsmith.span.kind': 'llm',
      'gen_ai.operation.name': 'chat',
      'gen_ai.completion': j({
        generations: [
          [
            {
              message: {
                lc: 1,
                type: 'constructor',
                kwargs: {
                  content: '',
                  tool_calls: [
                    {
                      name: 'tavily_search',
                      args: { query: 'weather in SF' },
                      id: 'call_ls_1',
                      type: 'tool_call',
                    },
                  ],
                },
              },
            },
          ],
        ],
      }),
    },
  },
  {
    traceId: t,
    spanId: s(3),
    parentSpanId: s(1),
    name: 'tavily_search',
    scope: 'langsmith',
    startMs: 11,
    endMs: 20,
    attributes: {
      'langsmith.span.kind': 'tool',
      'gen_ai.operation.name': 'execute_tool',
      'langsmith.trace.name': 'tavily_search',
      'gen_ai.prompt': j({ query: 'weather in SF' }),
      'gen_ai.completion': j({ output: '60 degrees and foggy' }),
    },
  },
];

/** The `hand-langsmith` fixture. */
export const fixture = { name: 'hand-langsmith', spans };
