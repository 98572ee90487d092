/**
 * Two instrumentations nesting one call: an OpenInference TOOL span around a GenAI execute_tool span.
 * HAND-BUILT: written from the sources cited in ../shared/reference/otel-tool-conventions.md §2.
 */
import { spanId, traceId, type SpanInput } from '../../test/helpers/otlp-json-builder.js';
import { j } from './json.js';

const t = traceId(113);
const s = (n: number): string => spanId(113, n);
const spans: SpanInput[] = [
  {
    traceId: t,
    spanId: s(1),
    name: 'agent',
    startMs: 0,
    endMs: 50,
    attributes: { 'openinference.span.kind': 'AGENT', 'test_case.id': 'nested-instrumentations' },
  },
  {
    traceId: t,
    spanId: s(2),
    parentSpanId: s(1),
    name: 'get_weather',
    scope: 'openinference',
    startMs: 5,
    endMs: 30,
    attributes: {
      'openinference.span.kind': 'TOOL',
      'tool.name': 'get_weather',
      'input.value': j({ city: 'Rome' }),
    },
  },
  {
    traceId: t,
    spanId: s(3),
    parentSpanId: s(2),
    name: 'execute_tool getWeather',
    startMs: 6,
    endMs: 29,
    attributes: {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'getWeather',
      'gen_ai.tool.call.id': 'call_n1',
      'gen_ai.tool.call.result': j({ temp: 24 }),
    },
  },
  {
    traceId: t,
    spanId: s(4),
    parentSpanId: s(1),
    name: 'get_weather',
    scope: 'openinference',
    startMs: 31,
    endMs: 40,
    attributes: {
      'openinference.span.kind': 'TOOL',
      'tool.name': 'get_weather',
      'input.value': j({ city: 'Milan' }),
    },
  },
];

/** The `hand-nested-instrumentations` fixture. */
export const fixture = { name: 'hand-nested-instrumentations', spans };
