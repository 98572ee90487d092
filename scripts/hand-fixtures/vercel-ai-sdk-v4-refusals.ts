/**
 * The Vercel AI SDK v4's refusals: it does not answer the model a tool-error as v5 does, it ends
 * the run, recording its error on the `ai.generateText` span (`recordSpan`: `recordException`
 * with the error's name as `exception.type`, status ERROR with its message). `invalid-arguments`:
 * arguments that are not JSON (`AI_InvalidToolArgumentsError`); `no-such-tool`: a tool the call
 * was not given (`AI_NoSuchToolError`). The model's request is on the `doGenerate` span, as v4
 * writes it (`args` the model's JSON text).
 * HAND-BUILT: `ai` 4 cannot be installed beside the `ai` 5 this package's captures use; written
 * from `packages/ai/core/generate-text/parse-tool-call.ts` and `core/telemetry/record-span.ts` of
 * vercel/ai 4.x (../shared/reference/otel-tool-conventions.md §2).
 */
import { spanId, traceId, type SpanInput } from '../../test/helpers/otlp-json-builder.js';
import { j } from './json.js';

const WEATHER = {
  type: 'function',
  name: 'weather',
  description: 'Weather in a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

function refusedRun(
  n: number,
  testCaseId: string,
  call: { toolCallId: string; toolName: string; args: string },
  error: { type: string; message: string },
): SpanInput[] {
  const t = traceId(n);
  return [
    {
      traceId: t,
      spanId: spanId(n, 1),
      name: 'ai.generateText',
      scope: 'ai',
      startMs: 0,
      endMs: 20,
      attributes: {
        'ai.operationId': 'ai.generateText',
        'ai.telemetry.metadata.testCaseId': testCaseId,
        'ai.prompt': j({ prompt: 'What is the weather in Rome?' }),
      },
      status: { code: 2, message: error.message },
      events: [
        {
          name: 'exception',
          atMs: 19,
          attributes: { 'exception.type': error.type, 'exception.message': error.message },
        },
      ],
    },
    {
      traceId: t,
      spanId: spanId(n, 2),
      parentSpanId: spanId(n, 1),
      name: 'ai.generateText.doGenerate',
      scope: 'ai',
      startMs: 1,
      endMs: 15,
      attributes: {
        'ai.operationId': 'ai.generateText.doGenerate',
        'ai.prompt.tools': [j(WEATHER)],
        'ai.response.toolCalls': j([{ toolCallType: 'function', ...call }]),
      },
    },
  ];
}

const spans: SpanInput[] = [
  ...refusedRun(
    140,
    'invalid-arguments',
    { toolCallId: 'v4_bad_args', toolName: 'weather', args: '{"city":' },
    {
      type: 'AI_InvalidToolArgumentsError',
      message:
        'Invalid arguments for tool weather: JSON parsing failed: Text: {"city":.\nError message: Unexpected end of JSON input',
    },
  ),
  ...refusedRun(
    141,
    'no-such-tool',
    { toolCallId: 'v4_unknown', toolName: 'book_flight', args: '{"to":"LIS"}' },
    {
      type: 'AI_NoSuchToolError',
      message: "Model tried to call unavailable tool 'book_flight'. Available tools: weather.",
    },
  ),
];

/** The `hand-vercel-ai-sdk-v4-refusals` fixture. */
export const fixture = { name: 'hand-vercel-ai-sdk-v4-refusals', spans };
