/**
 * Pydantic AI: instrumentation v2 ("running tool") and current (execute_tool + logfire.msg).
 * HAND-BUILT: written from the sources cited in ../shared/reference/otel-tool-conventions.md §2.
 */
import { spanId, traceId, type SpanInput } from '../../test/helpers/otlp-json-builder.js';
import { j } from './json.js';

const t1 = traceId(103);
const t2 = traceId(104);
const spans: SpanInput[] = [
  {
    traceId: t1,
    spanId: spanId(103, 1),
    name: 'agent run',
    scope: 'pydantic-ai',
    startMs: 0,
    endMs: 30,
    attributes: { 'test_case.id': 'pydantic-ai-v2', 'logfire.msg': 'roulette_agent run' },
  },
  {
    traceId: t1,
    spanId: spanId(103, 2),
    parentSpanId: spanId(103, 1),
    name: 'running tool',
    scope: 'pydantic-ai',
    startMs: 5,
    endMs: 10,
    attributes: {
      'gen_ai.tool.name': 'roulette_wheel',
      'gen_ai.tool.call.id': 'pyd_call_1',
      tool_arguments: j({ square: 18 }),
      tool_response: 'loser',
    },
  },
  {
    traceId: t2,
    spanId: spanId(104, 1),
    name: 'invoke_agent support_agent',
    scope: 'pydantic-ai',
    startMs: 0,
    endMs: 30,
    attributes: {
      'test_case.id': 'pydantic-ai-current',
      'gen_ai.operation.name': 'invoke_agent',
    },
  },
  {
    traceId: t2,
    spanId: spanId(104, 2),
    parentSpanId: spanId(104, 1),
    name: 'execute_tool customer_balance',
    scope: 'pydantic-ai',
    startMs: 5,
    endMs: 10,
    attributes: {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'customer_balance',
      'gen_ai.tool.call.id': 'pyd_call_2',
      'gen_ai.tool.call.arguments': j({ include_pending: true }),
      'gen_ai.tool.call.result': '123.45',
      'logfire.msg': 'running tool: customer_balance',
    },
  },
];

/** The `hand-pydantic-ai` fixture. */
export const fixture = { name: 'hand-pydantic-ai', spans };
