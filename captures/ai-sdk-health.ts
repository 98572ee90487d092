/**
 * The tool-health scenarios (`health-scenarios.ts`) through the Vercel AI SDK 6
 * (`experimental_telemetry`) and 7 (`@ai-sdk/otel`), set up as `ai-sdk.ts` is: `generateText`
 * with the two health tools, `stopWhen: stepCountIs(6)`, real HTTP to the scripted server. The SDK
 * validates each call's input against the tool's schema and answers the model a `tool-error` for
 * an invalid input or a tool it does not have; a tool that throws is a `tool-error` too.
 */
import { trace } from '@opentelemetry/api';
import { createOpenAICompatible as createOpenAICompatible6 } from '@ai-sdk/openai-compatible-v2';
import { createOpenAICompatible as createOpenAICompatible7 } from '@ai-sdk/openai-compatible';
import { OpenTelemetry } from '@ai-sdk/otel';
import * as ai7 from 'ai';
import * as ai6 from 'ai6';
import { HEALTH_SCENARIOS, HEALTH_TOOLS, healthServer, runHealthTool } from './health-scenarios.js';
import { MODEL } from './scenarios.js';
import { recordingProvider, versionOf, writeFixture } from './write-fixture.js';

const { provider, exporter } = recordingProvider('ai-sdk-health-agent');
trace.setGlobalTracerProvider(provider);
const tracer = provider.getTracer('ai');

const definitions = Object.entries(HEALTH_TOOLS).map(([name, t]) => ({
  name,
  description: t.description,
  inputSchema: t.schema,
  execute: (args: unknown) => Promise.resolve(runHealthTool(name, args)),
}));
const tools6 = Object.fromEntries(definitions.map(({ name, ...d }) => [name, ai6.tool(d)]));
const tools7 = Object.fromEntries(definitions.map(({ name, ...d }) => [name, ai7.tool(d)]));

for (const major of [6, 7] as const) {
  exporter.reset();
  if (major === 7) ai7.registerTelemetry(new OpenTelemetry({ tracer }));
  for (const scenario of HEALTH_SCENARIOS) {
    const server = await healthServer(scenario);
    const options = { name: 'scripted', baseURL: server.baseURL, apiKey: 'capture' };
    await tracer.startActiveSpan(
      'health-agent',
      { attributes: { 'spanscore.test_case.id': scenario.testCaseId } },
      async span => {
        if (major === 6)
          await ai6.generateText({
            model: createOpenAICompatible6(options)(MODEL),
            prompt: scenario.prompt,
            tools: tools6,
            stopWhen: ai6.stepCountIs(6),
            experimental_telemetry: { isEnabled: true, tracer },
          });
        else
          await ai7.generateText({
            model: createOpenAICompatible7(options)(MODEL),
            prompt: scenario.prompt,
            tools: tools7,
            stopWhen: ai7.stepCountIs(6),
          });
        span.end();
      },
    );
    await server.close();
  }
  await provider.forceFlush();
  writeFixture(
    `captured-ai-sdk-${versionOf(major === 6 ? 'ai6' : 'ai')}-health`,
    exporter.getFinishedSpans(),
  );
}
await provider.shutdown();
