/**
 * No gen_ai.operation.name on the tool span (older Pydantic AI, hand instrumentation): only
 * gen_ai.tool.name marks it. A model span carrying gen_ai.tool.name must not count as a call.
 * HAND-BUILT: written from the sources cited in ../shared/reference/otel-tool-conventions.md §2.
 */
import { spanId, traceId, type SpanInput } from '../../test/helpers/otlp-json-builder.js';
import { j } from './json.js';

const t = traceId(116);
const s = (n: number): string => spanId(116, n);
const spans: SpanInput[] = [
  {
    traceId: t,
    spanId: s(1),
    name: 'agent run',
    startMs: 0,
    endMs: 30,
    attributes: { 'test_case.id': 'gen-ai-tool-name-fallback' },
  },
  {
    traceId: t,
    spanId: s(2),
    parentSpanId: s(1),
    name: 'chat gpt-4o',
    startMs: 1,
    endMs: 5,
    attributes: { 'gen_ai.request.model': 'gpt-4o', 'gen_ai.tool.name': 'not_a_call' },
  },
  {
    traceId: t,
    spanId: s(3),
    parentSpanId: s(1),
    name: 'tool call',
    startMs: 6,
    endMs: 9,
    attributes: {
      'gen_ai.tool.name': 'get_exchange_rate',
      'gen_ai.tool.call.id': 'fx_1',
      'gen_ai.tool.call.arguments': j({ from: 'EUR', to: 'USD' }),
      'gen_ai.tool.call.result': '1.08',
    },
  },
];

/** The `hand-gen-ai-tool-name-fallback` fixture. */
export const fixture = { name: 'hand-gen-ai-tool-name-fallback', spans };
