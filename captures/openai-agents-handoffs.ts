/**
 * The OpenAI Agents SDK for JS with a handoff, as its docs show one: a `triage` agent whose
 * `handoffs` list the `billing` agent (the SDK offers the model a `transfer_to_billing` tool),
 * each agent with its own `tool()` tools, run through a `Runner` on Chat Completions against the
 * scripted server, bridged to OpenTelemetry by OpenInference's instrumentation. The two scenarios
 * of `agent-scenarios.ts`; the test case id on a parent span.
 */
import { OpenAIAgentsInstrumentation } from '@arizeai/openinference-instrumentation-openai-agents';
import * as agents from '@openai/agents';
import { trace } from '@opentelemetry/api';
import {
  AGENT_TOOLS,
  agentScenarioServer,
  agentScenarios,
  runAgentTool,
  toolsOf,
} from './agent-scenarios.js';
import { AGENT_TOOL_SCHEMAS } from './tool-schemas.js';
import { MODEL } from './scenarios.js';
import { recordingProvider, versionOf, writeFixture } from './write-fixture.js';

const { provider, exporter } = recordingProvider('openai-agents-support-team');
trace.setGlobalTracerProvider(provider);
new OpenAIAgentsInstrumentation({ tracerProvider: provider }).manuallyInstrument(agents);
const tracer = provider.getTracer('app');

const toolsFor = (agent: 'triage' | 'billing') =>
  toolsOf(agent).map(name =>
    agents.tool({
      name,
      description: AGENT_TOOLS[name].description,
      parameters: AGENT_TOOL_SCHEMAS[name],
      execute: (input: unknown) => JSON.stringify(runAgentTool(name, input)),
    }),
  );

const billing = new agents.Agent({
  name: 'billing',
  instructions: 'You handle charges and refunds.',
  model: MODEL,
  tools: toolsFor('billing'),
});
const triage = new agents.Agent({
  name: 'triage',
  instructions: 'You answer general questions and hand billing questions to billing.',
  model: MODEL,
  tools: toolsFor('triage'),
  handoffs: [billing],
});

for (const scenario of agentScenarios('transfer_to_billing')) {
  const server = await agentScenarioServer(scenario);
  const runner = new agents.Runner({
    modelProvider: new agents.OpenAIProvider({
      baseURL: server.baseURL,
      apiKey: 'capture',
      useResponses: false,
    }),
  });
  await tracer.startActiveSpan(
    'support-run',
    { attributes: { 'spanscore.test_case.id': scenario.testCaseId } },
    async span => {
      await runner.run(triage, scenario.prompt, { maxTurns: 8 });
      span.end();
    },
  );
  await server.close();
}
await agents.getGlobalTraceProvider().forceFlush();
await provider.forceFlush();
writeFixture(
  `captured-openai-agents-${versionOf('@openai/agents')}-handoffs`,
  exporter.getFinishedSpans(),
);
await agents.getGlobalTraceProvider().shutdown();
