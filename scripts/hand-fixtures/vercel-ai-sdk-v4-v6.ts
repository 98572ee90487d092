/**
 * Vercel AI SDK v4 (ai.response.toolCalls in the provider shape) with a request never executed,
 * and v6's ai.toolCall.input / .output names.
 * HAND-BUILT: written from the sources cited in ../shared/reference/otel-tool-conventions.md §2.
 */
import { spanId, traceId, type SpanInput } from '../../test/helpers/otlp-json-builder.js';
import { j } from './json.js';

const t1 = traceId(114);
const t2 = traceId(115);
const spans: SpanInput[] = [
  {
    traceId: t1,
    spanId: spanId(114, 1),
    name: 'ai.generateText',
    scope: 'ai',
    startMs: 0,
    endMs: 20,
    attributes: {
      'ai.operationId': 'ai.generateText',
      'ai.telemetry.metadata.testCaseId': 'vercel-v4',
      'ai.prompt': j({ prompt: 'Weather in Rome and Madrid?' }),
    },
  },
  {
    traceId: t1,
    spanId: spanId(114, 2),
    parentSpanId: spanId(114, 1),
    name: 'ai.generateText.doGenerate',
    scope: 'ai',
    startMs: 1,
    endMs: 9,
    attributes: {
      'ai.operationId': 'ai.generateText.doGenerate',
      'ai.response.toolCalls': j([
        {
          toolCallType: 'function',
          toolCallId: 'v4_call_1',
          toolName: 'weather',
          args: { city: 'Rome' },
        },
        {
          toolCallType: 'function',
          toolCallId: 'v4_call_2',
          toolName: 'weather',
          args: { city: 'Madrid' },
        },
      ]),
    },
  },
  {
    traceId: t1,
    spanId: spanId(114, 3),
    parentSpanId: spanId(114, 1),
    name: 'ai.toolCall',
    scope: 'ai',
    startMs: 10,
    endMs: 15,
    attributes: {
      'ai.operationId': 'ai.toolCall',
      'ai.toolCall.name': 'weather',
      'ai.toolCall.id': 'v4_call_1',
      'ai.toolCall.args': j({ city: 'Rome' }),
      'ai.toolCall.result': j({ temp: 27 }),
    },
  },
  {
    traceId: t2,
    spanId: spanId(115, 1),
    name: 'ai.streamText',
    scope: 'ai',
    startMs: 0,
    endMs: 20,
    attributes: {
      'ai.operationId': 'ai.streamText',
      'ai.telemetry.metadata.testCaseId': 'vercel-v6',
    },
  },
  {
    traceId: t2,
    spanId: spanId(115, 2),
    parentSpanId: spanId(115, 1),
    name: 'ai.toolCall',
    scope: 'ai',
    startMs: 5,
    endMs: 9,
    attributes: {
      'ai.operationId': 'ai.toolCall',
      'ai.toolCall.name': 'getStockPrice',
      'ai.toolCall.id': 'v6_call_1',
      'ai.toolCall.input': j({ symbol: 'ACME' }),
      'ai.toolCall.output': j({ price: 12.5 }),
    },
  },
];

/** The `hand-vercel-ai-sdk-v4-v6` fixture. */
export const fixture = { name: 'hand-vercel-ai-sdk-v4-v6', spans };
