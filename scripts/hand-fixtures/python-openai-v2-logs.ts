/**
 * Python's `opentelemetry-instrumentation-openai-v2` (the OpenTelemetry project's) in the newest
 * GenAI conventions (`OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental`, content capture
 * on): a `chat <model>` span per model call carrying no messages, and per call one log record
 * `gen_ai.client.inference.operation.details` in the span's context whose attributes hold
 * `gen_ai.input.messages` and `gen_ai.output.messages` as structured values (not JSON text):
 * `tool_call` parts in the output, `tool_call_response` parts in the next call's input. The
 * agent's own root span carries the test case id; the tools run without spans.
 * HAND-BUILT: Python cannot run here; written from the GenAI event and message conventions
 * (gen_ai.client.inference.operation.details, gen_ai.input/output.messages) cited in
 * ../shared/reference/otel-tool-conventions.md §1.4b.
 */
import {
  spanId,
  traceId,
  type LogInput,
  type SpanInput,
} from '../../test/helpers/otlp-json-builder.js';

const t = traceId(150);
const s = (n: number): string => spanId(150, n);
const SCOPE = 'opentelemetry.instrumentation.openai_v2';
const SERVICE = 'python-travel-agent';

const chat = (n: number, startMs: number, endMs: number): SpanInput => ({
  traceId: t,
  spanId: s(n),
  parentSpanId: s(1),
  name: 'chat gpt-4o-mini',
  kind: 3,
  startMs,
  endMs,
  service: SERVICE,
  scope: SCOPE,
  attributes: {
    'gen_ai.operation.name': 'chat',
    'gen_ai.provider.name': 'openai',
    'gen_ai.request.model': 'gpt-4o-mini',
  },
});

const user = { role: 'user', parts: [{ type: 'text', content: 'Book a flight OSL to LIS' }] };
const askSearch = {
  role: 'assistant',
  parts: [
    {
      type: 'tool_call',
      id: 'call_py_search',
      name: 'search_flights',
      arguments: { from: 'OSL', to: 'LIS' },
    },
  ],
};
const searchResult = {
  role: 'tool',
  parts: [{ type: 'tool_call_response', id: 'call_py_search', response: { flights: ['TP1'] } }],
};
const askBook = {
  role: 'assistant',
  parts: [{ type: 'tool_call', id: 'call_py_book', name: 'book_flight', arguments: { id: 'TP1' } }],
};
const bookResult = {
  role: 'tool',
  parts: [{ type: 'tool_call_response', id: 'call_py_book', response: { confirmation: 'C-1' } }],
};
const answer = { role: 'assistant', parts: [{ type: 'text', content: 'Booked TP1 (C-1).' }] };

const details = (n: number, atMs: number, input: unknown[], output: unknown[]): LogInput => ({
  traceId: t,
  spanId: s(n),
  eventName: 'gen_ai.client.inference.operation.details',
  atMs,
  service: SERVICE,
  scope: SCOPE,
  attributes: {
    'gen_ai.operation.name': 'chat',
    'gen_ai.request.model': 'gpt-4o-mini',
    'gen_ai.input.messages': input as never,
    'gen_ai.output.messages': output as never,
  },
});

export const fixture = {
  name: 'hand-python-openai-v2-logs',
  spans: [
    {
      traceId: t,
      spanId: s(1),
      name: 'travel_agent',
      startMs: 0,
      endMs: 100,
      service: SERVICE,
      scope: 'app',
      attributes: { 'spanscore.test_case.id': 'python-openai-v2-logs' },
    },
    chat(2, 1, 20),
    chat(3, 30, 50),
    chat(4, 60, 90),
  ] satisfies SpanInput[],
  logs: [
    details(2, 20, [user], [askSearch]),
    details(3, 50, [user, askSearch, searchResult], [askBook]),
    details(4, 90, [user, askSearch, searchResult, askBook, bookResult], [answer]),
  ],
};
