/**
 * OpenLLMetry legacy attributes (≤0.4x) and a Python `@tool` span with `{"args","kwargs"}` input.
 * HAND-BUILT: written from the sources cited in ../shared/reference/otel-tool-conventions.md §2.
 */
import { spanId, traceId, type SpanInput } from '../../test/helpers/otlp-json-builder.js';
import { j } from './json.js';

const t = traceId(112);
const s = (n: number): string => spanId(112, n);
const spans: SpanInput[] = [
  {
    traceId: t,
    spanId: s(1),
    name: 'support.workflow',
    scope: 'traceloop.tracer',
    startMs: 0,
    endMs: 50,
    attributes: {
      'traceloop.span.kind': 'workflow',
      'traceloop.entity.name': 'support',
      'test_case.id': 'openllmetry-legacy',
      'traceloop.entity.input': j({ args: ['Where is order A-1187?'], kwargs: {} }),
      'traceloop.entity.output': j('Order A-1187 has shipped.'),
    },
  },
  {
    traceId: t,
    spanId: s(2),
    parentSpanId: s(1),
    name: 'openai.chat',
    kind: 3,
    scope: 'opentelemetry.instrumentation.openai',
    startMs: 1,
    endMs: 9,
    attributes: {
      'llm.request.type': 'chat',
      'gen_ai.request.model': 'gpt-4o',
      'gen_ai.prompt.0.role': 'user',
      'gen_ai.prompt.0.content': 'Where is order A-1187?',
      'gen_ai.completion.0.role': 'assistant',
      'gen_ai.completion.0.finish_reason': 'tool_calls',
      'gen_ai.completion.0.tool_calls.0.id': 'call_tl_1',
      'gen_ai.completion.0.tool_calls.0.name': 'lookup_order',
      'gen_ai.completion.0.tool_calls.0.arguments': j({ order_id: 'A-1187' }),
    },
  },
  {
    traceId: t,
    spanId: s(3),
    parentSpanId: s(1),
    name: 'lookup_order.tool',
    scope: 'traceloop.tracer',
    startMs: 10,
    endMs: 15,
    attributes: {
      'traceloop.span.kind': 'tool',
      'traceloop.entity.name': 'lookup_order',
      'traceloop.entity.input': j({ args: [], kwargs: { order_id: 'A-1187' } }),
      'traceloop.entity.output': j({ status: 'shipped' }),
    },
  },
  {
    traceId: t,
    spanId: s(4),
    parentSpanId: s(1),
    name: 'openai.chat',
    kind: 3,
    scope: 'opentelemetry.instrumentation.openai',
    startMs: 16,
    endMs: 25,
    attributes: {
      'llm.request.type': 'chat',
      'gen_ai.request.model': 'gpt-4o',
      'gen_ai.prompt.0.role': 'user',
      'gen_ai.prompt.0.content': 'Where is order A-1187?',
      'gen_ai.prompt.1.role': 'assistant',
      'gen_ai.prompt.2.role': 'tool',
      'gen_ai.prompt.2.tool_call_id': 'call_tl_1',
      'gen_ai.prompt.2.content': j({ status: 'shipped' }),
      'gen_ai.completion.0.role': 'assistant',
      'gen_ai.completion.0.content': 'Order A-1187 has shipped.',
    },
  },
];

/** The `hand-openllmetry-legacy` fixture. */
export const fixture = { name: 'hand-openllmetry-legacy', spans };
