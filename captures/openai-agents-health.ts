/**
 * The tool-health scenarios (`health-scenarios.ts`) through the OpenAI Agents SDK for JS, set up as
 * `openai-agents.ts` is (a `Runner` on Chat Completions against the scripted server, OpenInference's
 * bridge to OpenTelemetry). The SDK parses each call's arguments with the tool's zod schema and, when
 * they fail or the tool throws, answers the model its error text instead of a result; a call to a
 * tool the agent does not have ends the run with a `ModelBehaviorError`.
 */
import { OpenAIAgentsInstrumentation } from '@arizeai/openinference-instrumentation-openai-agents';
import * as agents from '@openai/agents';
import { trace } from '@opentelemetry/api';
import { HEALTH_SCENARIOS, HEALTH_TOOLS, healthServer, runHealthTool } from './health-scenarios.js';
import { MODEL } from './scenarios.js';
import { recordingProvider, versionOf, writeFixture } from './write-fixture.js';

const { provider, exporter } = recordingProvider('openai-agents-health-agent');
trace.setGlobalTracerProvider(provider);
new OpenAIAgentsInstrumentation({ tracerProvider: provider }).manuallyInstrument(agents);
const tracer = provider.getTracer('app');

const agent = new agents.Agent({
  name: 'health-agent',
  instructions: 'You help travellers with the weather and money.',
  model: MODEL,
  tools: Object.entries(HEALTH_TOOLS).map(([name, t]) =>
    agents.tool({
      name,
      description: t.description,
      parameters: t.schema,
      execute: (input: unknown) => JSON.stringify(runHealthTool(name, input)),
    }),
  ),
});

for (const scenario of HEALTH_SCENARIOS) {
  const server = await healthServer(scenario);
  const runner = new agents.Runner({
    modelProvider: new agents.OpenAIProvider({
      baseURL: server.baseURL,
      apiKey: 'capture',
      useResponses: false,
    }),
  });
  await tracer.startActiveSpan(
    'health-run',
    { attributes: { 'spanscore.test_case.id': scenario.testCaseId } },
    async span => {
      try {
        await runner.run(agent, scenario.prompt, { maxTurns: 6 });
      } catch (error) {
        console.log(
          `openai-agents: ${scenario.testCaseId}: the run failed: ${(error as Error).message}`,
        );
      }
      span.end();
    },
  );
  await server.close();
}
await agents.getGlobalTraceProvider().forceFlush();
await provider.forceFlush();
writeFixture(
  `captured-openai-agents-${versionOf('@openai/agents')}-health`,
  exporter.getFinishedSpans(),
);
await agents.getGlobalTraceProvider().shutdown();
