/**
 * The refusal scenarios (`refusal-scenarios.ts`) through the OpenAI Agents SDK for JS, set up as
 * `openai-agents-health.ts` is (a `Runner` on Chat Completions against the scripted server,
 * OpenInference's bridge to OpenTelemetry). The SDK parses each call's arguments before running
 * the tool: arguments that are not JSON are answered with its own parse-error output, the tool
 * never run; a tool that throws is answered with its generic error output.
 */
import { OpenAIAgentsInstrumentation } from '@arizeai/openinference-instrumentation-openai-agents';
import * as agents from '@openai/agents';
import { trace } from '@opentelemetry/api';
import {
  REFUSAL_SCENARIOS,
  REFUSAL_TOOLS,
  refusalServer,
  runRefusalTool,
} from './refusal-scenarios.js';
import { MODEL } from './scenarios.js';
import { recordingProvider, versionOf, writeFixture } from './write-fixture.js';

const { provider, exporter } = recordingProvider('openai-agents-refusals-agent');
trace.setGlobalTracerProvider(provider);
new OpenAIAgentsInstrumentation({ tracerProvider: provider }).manuallyInstrument(agents);
const tracer = provider.getTracer('app');

const agent = new agents.Agent({
  name: 'refusals-agent',
  instructions: 'You help travellers with the weather, money and bookings.',
  model: MODEL,
  tools: Object.entries(REFUSAL_TOOLS).map(([name, t]) =>
    agents.tool({
      name,
      description: t.description,
      parameters: t.schema,
      execute: (input: unknown) => JSON.stringify(runRefusalTool(name, input)),
    }),
  ),
});

for (const scenario of REFUSAL_SCENARIOS) {
  const server = await refusalServer(scenario);
  const runner = new agents.Runner({
    modelProvider: new agents.OpenAIProvider({
      baseURL: server.baseURL,
      apiKey: 'capture',
      useResponses: false,
    }),
  });
  await tracer.startActiveSpan(
    'refusals-run',
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
  `captured-openai-agents-${versionOf('@openai/agents')}-refusals`,
  exporter.getFinishedSpans(),
);
await agents.getGlobalTraceProvider().shutdown();
