/**
 * Captures the Vercel AI SDK v5's refusal shapes, and the failures that only look like them, as
 * `test/fixtures/otlp/captured-vercel-ai-sdk-v5-refusals.otlp.json`: real output of `ai` (this
 * package's devDependency) with its `MockLanguageModelV2` and `experimental_telemetry`, serialized
 * as the OTLP/HTTP JSON exporter sends it. Each scenario is one trace, tagged with its test case
 * id; `test/fixtures/expected/captured-vercel-ai-sdk-v5-refusals.tool-health.json` is written from
 * this file:
 * - `invalid-input`: `convert_currency` with `amount` a string and `to` missing, which the SDK
 *   refuses (`InvalidToolInputError`, no `ai.toolCall` span), then the corrected call;
 * - `no-such-tool`: `delete_booking`, which the agent does not have (`NoSuchToolError`);
 * - `tool-says-invalid-input`: `convert_currency` with a negative amount, which the schema accepts
 *   and the tool itself rejects by throwing the SDK's own words
 *   (`Invalid input for tool convert_currency: …`): the tool ran, so its failure is an error, not
 *   a refusal;
 * - `empty-error-field`: `lookup_booking`, which answers `{"error": ""}`: no failure;
 * - `retried-attempt`: `get_weather`, whose first attempt times out; the tool records that on its
 *   span through the OpenTelemetry API (`recordException`), retries, and ends the span OK: ok.
 *
 * Run alone with `npx tsx scripts/capture-ai-sdk-v5-refusals.ts`; `npm run capture-fixtures` runs
 * it with the other captures.
 */
import { writeFileSync } from 'node:fs';
import { SpanStatusCode, context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { generateText, stepCountIs, tool } from 'ai';
import { MockLanguageModelV2 } from 'ai/test';
import { z } from 'zod';

const NAME = 'captured-vercel-ai-sdk-v5-refusals';

interface Scenario {
  id: string;
  prompt: string;
  steps: Array<Array<{ id: string; name: string; input: unknown }>>;
  answer: string;
}

const SCENARIOS: Scenario[] = [
  {
    id: 'invalid-input',
    prompt: 'Convert 100 EUR to USD.',
    steps: [
      [{ id: 'call_convert_bad', name: 'convert_currency', input: { amount: '100', from: 'EUR' } }],
      [
        {
          id: 'call_convert_good',
          name: 'convert_currency',
          input: { amount: 100, from: 'EUR', to: 'USD' },
        },
      ],
    ],
    answer: '100 EUR is 108 USD.',
  },
  {
    id: 'no-such-tool',
    prompt: 'Cancel my booking B-42.',
    steps: [[{ id: 'call_delete', name: 'delete_booking', input: { bookingId: 'B-42' } }]],
    answer: 'I cannot cancel bookings.',
  },
  {
    id: 'tool-says-invalid-input',
    prompt: 'Convert -5 EUR to USD.',
    steps: [
      [
        {
          id: 'call_convert_negative',
          name: 'convert_currency',
          input: { amount: -5, from: 'EUR', to: 'USD' },
        },
      ],
    ],
    answer: 'I cannot convert a negative amount.',
  },
  {
    id: 'empty-error-field',
    prompt: 'Find booking B-7.',
    steps: [[{ id: 'call_lookup', name: 'lookup_booking', input: { bookingId: 'B-7' } }]],
    answer: 'Booking B-7 is confirmed.',
  },
  {
    id: 'retried-attempt',
    prompt: 'What is the weather in Oslo?',
    steps: [[{ id: 'call_weather_oslo', name: 'get_weather', input: { city: 'Oslo' } }]],
    answer: 'It is 4 °C and cloudy in Oslo.',
  },
];

const tools = {
  get_weather: tool({
    description: 'Current weather for a city',
    inputSchema: z.object({ city: z.string() }),
    execute: async ({ city }) => {
      // The tool's own retry: the failed attempt recorded on the call's span, which then ends OK.
      const span = trace.getActiveSpan();
      span?.recordException(new Error(`weather service timed out for ${city}, retrying`));
      const result = await Promise.resolve({ city, temperatureC: 4, condition: 'cloudy' });
      span?.setStatus({ code: SpanStatusCode.OK });
      return result;
    },
  }),
  convert_currency: tool({
    description: 'Convert an amount between two currencies',
    inputSchema: z.object({ amount: z.number(), from: z.string(), to: z.string() }),
    execute: ({ amount, to }) => {
      if (amount < 0)
        return Promise.reject(
          new Error('Invalid input for tool convert_currency: amount must be positive'),
        );
      return Promise.resolve({ amount: Math.round(amount * 108) / 100, currency: to });
    },
  }),
  lookup_booking: tool({
    description: 'Look a booking up by its id',
    inputSchema: z.object({ bookingId: z.string() }),
    // An upstream API's answer passed on as it is: an empty error field means no error.
    execute: () => Promise.resolve({ error: '' }),
  }),
};

/**
 * Runs the scenarios through the AI SDK v5 and writes the fixture into `out`. Needs a context
 * manager registered (the tool reads its span as the active one).
 */
export async function captureAiSdkV5Refusals(out: URL): Promise<void> {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'vercel-refusals-agent' }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  const tracer = provider.getTracer('ai');
  for (const s of SCENARIOS) {
    let step = 0;
    const usage = { inputTokens: 40, outputTokens: 12, totalTokens: 52 };
    const model = new MockLanguageModelV2({
      modelId: 'mock-model',
      doGenerate: () => {
        const calls = s.steps[step++];
        return Promise.resolve(
          calls
            ? {
                content: calls.map(c => ({
                  type: 'tool-call' as const,
                  toolCallId: c.id,
                  toolName: c.name,
                  input: JSON.stringify(c.input),
                })),
                finishReason: 'tool-calls' as const,
                usage,
                warnings: [],
              }
            : {
                content: [{ type: 'text' as const, text: s.answer }],
                finishReason: 'stop' as const,
                usage,
                warnings: [],
              },
        );
      },
    });
    await generateText({
      model,
      tools,
      prompt: s.prompt,
      stopWhen: stepCountIs(5),
      experimental_telemetry: {
        isEnabled: true,
        functionId: 'refusals-agent',
        metadata: { testCaseId: s.id },
        tracer,
      },
    });
  }
  const spans = exporter.getFinishedSpans();
  const json = JSON.parse(
    new TextDecoder().decode(JsonTraceSerializer.serializeRequest(spans)),
  ) as unknown;
  writeFileSync(new URL(`${NAME}.otlp.json`, out), `${JSON.stringify(json, null, 2)}\n`);
  console.log(`${NAME}: ${spans.length} spans`);
  await provider.shutdown();
}

if (import.meta.url === `file://${process.argv[1]}`) {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  await captureAiSdkV5Refusals(new URL('../test/fixtures/otlp/', import.meta.url));
}
