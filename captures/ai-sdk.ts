/**
 * The Vercel AI SDK, 6 and 7, `generateText` with tools and `stopWhen: stepCountIs(5)` against
 * the scripted server through `@ai-sdk/openai-compatible` (real HTTP): AI SDK 6 with
 * `experimental_telemetry` (its own `ai.*` spans), AI SDK 7 with `@ai-sdk/otel`'s `OpenTelemetry`
 * integration (GenAI semantic-convention spans). The test case id is set as spanscore documents it
 * for any framework: an attribute on a parent span (`withTestCase` does the same).
 */
import { trace } from '@opentelemetry/api';
import { createOpenAICompatible as createOpenAICompatible6 } from '@ai-sdk/openai-compatible-v2';
import { createOpenAICompatible as createOpenAICompatible7 } from '@ai-sdk/openai-compatible';
import { OpenTelemetry } from '@ai-sdk/otel';
import * as ai7 from 'ai';
import * as ai6 from 'ai6';
import { MODEL, SCENARIOS, TOOLS, runTool, scenarioServer } from './scenarios.js';
import { toolSchema } from './tool-schemas.js';
import { recordingProvider, versionOf, writeFixture } from './write-fixture.js';

const { provider, exporter } = recordingProvider('ai-sdk-travel-agent');
trace.setGlobalTracerProvider(provider);
const tracer = provider.getTracer('ai');

const definitions = Object.entries(TOOLS).map(([name, t]) => ({
  name,
  description: t.description,
  inputSchema: toolSchema(name),
  execute: (args: unknown) => Promise.resolve(runTool(name, args)),
}));
const tools6 = Object.fromEntries(definitions.map(({ name, ...d }) => [name, ai6.tool(d)]));
const tools7 = Object.fromEntries(definitions.map(({ name, ...d }) => [name, ai7.tool(d)]));

for (const major of [6, 7] as const) {
  exporter.reset();
  if (major === 7) ai7.registerTelemetry(new OpenTelemetry({ tracer }));
  for (const scenario of SCENARIOS) {
    const server = await scenarioServer(scenario);
    const options = { name: 'scripted', baseURL: server.baseURL, apiKey: 'capture' };
    await tracer.startActiveSpan(
      'travel-agent',
      { attributes: { 'spanscore.test_case.id': scenario.testCaseId } },
      async span => {
        if (major === 6)
          await ai6.generateText({
            model: createOpenAICompatible6(options)(MODEL),
            prompt: scenario.prompt,
            tools: tools6,
            stopWhen: ai6.stepCountIs(5),
            experimental_telemetry: { isEnabled: true, tracer },
          });
        else
          await ai7.generateText({
            model: createOpenAICompatible7(options)(MODEL),
            prompt: scenario.prompt,
            tools: tools7,
            stopWhen: ai7.stepCountIs(5),
          });
        span.end();
      },
    );
    await server.close();
  }
  await provider.forceFlush();
  writeFixture(
    `captured-ai-sdk-${versionOf(major === 6 ? 'ai6' : 'ai')}`,
    exporter.getFinishedSpans(),
  );
}
await provider.shutdown();
