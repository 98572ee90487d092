/**
 * The OpenAI Agents SDK for JS (`@openai/agents`) as its docs show it: an `Agent` with `tool()`
 * tools, `run()` through a `Runner` whose `OpenAIProvider` speaks Chat Completions to the scripted
 * server (real HTTP), and OpenInference's bridge from the SDK's own tracing to OpenTelemetry
 * (`@arizeai/openinference-instrumentation-openai-agents`, `manuallyInstrument(agents)`). The test
 * case id is set as spanscore documents it for any framework: an attribute on a parent span.
 */
import { OpenAIAgentsInstrumentation } from '@arizeai/openinference-instrumentation-openai-agents';
import * as agents from '@openai/agents';
import { trace } from '@opentelemetry/api';
import { MODEL, SCENARIOS, TOOLS, runTool, scenarioServer } from './scenarios.js';
import { toolSchema } from './tool-schemas.js';
import { recordingProvider, versionOf, writeFixture } from './write-fixture.js';

const { provider, exporter } = recordingProvider('openai-agents-travel-agent');
trace.setGlobalTracerProvider(provider);
new OpenAIAgentsInstrumentation({ tracerProvider: provider }).manuallyInstrument(agents);
const tracer = provider.getTracer('app');

const agent = new agents.Agent({
  name: 'travel-agent',
  instructions: 'You help travellers with the weather and flights.',
  model: MODEL,
  tools: Object.entries(TOOLS).map(([name, t]) =>
    agents.tool({
      name,
      description: t.description,
      parameters: toolSchema(name),
      execute: (input: unknown) => JSON.stringify(runTool(name, input)),
    }),
  ),
});

for (const scenario of SCENARIOS) {
  const server = await scenarioServer(scenario);
  const runner = new agents.Runner({
    modelProvider: new agents.OpenAIProvider({
      baseURL: server.baseURL,
      apiKey: 'capture',
      useResponses: false,
    }),
  });
  await tracer.startActiveSpan(
    'travel-run',
    { attributes: { 'spanscore.test_case.id': scenario.testCaseId } },
    async span => {
      await runner.run(agent, scenario.prompt, { maxTurns: 5 });
      span.end();
    },
  );
  await server.close();
}
await agents.getGlobalTraceProvider().forceFlush();
await provider.forceFlush();
writeFixture(`captured-openai-agents-${versionOf('@openai/agents')}`, exporter.getFinishedSpans());
await agents.getGlobalTraceProvider().shutdown();
