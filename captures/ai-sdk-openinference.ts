/**
 * The Vercel AI SDK 7 with its spans passed through OpenInference's Vercel span processor
 * (`@arizeai/openinference-vercel`'s `OpenInferenceSimpleSpanProcessor` in front of the exporter),
 * as Phoenix users run it: `registerTelemetry(new OpenTelemetry({ tracer, … }))` with the options
 * its README recommends, `generateText` with tools and `stopWhen: stepCountIs(5)` against the
 * scripted server through `@ai-sdk/openai-compatible` (real HTTP). The same spans then carry both
 * the AI SDK's GenAI (`gen_ai.*`) attributes and OpenInference's. The test case id is an attribute
 * of the run's root span, as spanscore documents for any framework.
 */
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { OpenTelemetry } from '@ai-sdk/otel';
import { OpenInferenceSimpleSpanProcessor } from '@arizeai/openinference-vercel';
import { trace } from '@opentelemetry/api';
import { generateText, registerTelemetry, stepCountIs, tool } from 'ai';
import { MODEL, SCENARIOS, TOOLS, runTool, scenarioServer } from './scenarios.js';
import { toolSchema } from './tool-schemas.js';
import { recordingProvider, versionOf, writeFixture } from './write-fixture.js';

const { provider, exporter } = recordingProvider(
  'ai-sdk-phoenix-agent',
  e => new OpenInferenceSimpleSpanProcessor({ exporter: e }),
);
trace.setGlobalTracerProvider(provider);
const tracer = provider.getTracer('ai');
registerTelemetry(
  new OpenTelemetry({
    tracer,
    usage: true,
    providerMetadata: true,
    runtimeContext: true,
    toolChoice: true,
    schema: true,
  }),
);

const tools = Object.fromEntries(
  Object.entries(TOOLS).map(([name, t]) => [
    name,
    tool({
      description: t.description,
      inputSchema: toolSchema(name),
      execute: (args: unknown) => Promise.resolve(runTool(name, args)),
    }),
  ]),
);

for (const scenario of SCENARIOS) {
  const server = await scenarioServer(scenario);
  const model = createOpenAICompatible({
    name: 'scripted',
    baseURL: server.baseURL,
    apiKey: 'capture',
  })(MODEL);
  await tracer.startActiveSpan(
    'travel-agent',
    { attributes: { 'spanscore.test_case.id': scenario.testCaseId } },
    async span => {
      await generateText({ model, prompt: scenario.prompt, tools, stopWhen: stepCountIs(5) });
      span.end();
    },
  );
  await server.close();
}
await provider.forceFlush();
writeFixture(
  `captured-ai-sdk-${versionOf('ai')}-openinference-vercel-${versionOf('@arizeai/openinference-vercel')}`,
  exporter.getFinishedSpans(),
);
await provider.shutdown();
