/**
 * Google ADK for TypeScript with a sub-agent, as its docs show agent transfer: a `triage`
 * `LlmAgent` whose `subAgents` list the `billing` agent (ADK offers the model its
 * `transfer_to_agent` tool, taking `agentName` in TypeScript), each agent with its own `FunctionTool`s, on the
 * scripted Gemini server, with ADK's own tracing (see `google-adk.ts`). The test case id on a
 * parent span. The two scenarios of `agent-scenarios.ts`.
 */
import { trace } from '@opentelemetry/api';
import { AGENT_TOOLS, agentScenarios, runAgentTool, toolsOf } from './agent-scenarios.js';
import { AGENT_TOOL_SCHEMAS } from './tool-schemas.js';
import { scriptedGeminiServer } from './scripted-gemini-server.js';
import { recordingProvider, versionOf, writeFixture } from './write-fixture.js';

const GEMINI_MODEL = 'gemini-2.5-flash';
const { provider, exporter } = recordingProvider('adk-support-team');
trace.setGlobalTracerProvider(provider);
const tracer = provider.getTracer('app');
// ADK takes its tracer when its module loads: the global provider first (see google-adk.ts).
const { FunctionTool, InMemoryRunner, LlmAgent } = await import('@google/adk');

const toolsFor = (agent: 'triage' | 'billing') =>
  toolsOf(agent).map(
    name =>
      new FunctionTool({
        name,
        description: AGENT_TOOLS[name].description,
        parameters: AGENT_TOOL_SCHEMAS[name],
        execute: (input: unknown) => runAgentTool(name, input),
      }),
  );

for (const scenario of agentScenarios('transfer_to_agent', { agentName: 'billing' })) {
  const server = await scriptedGeminiServer(scenario, GEMINI_MODEL);
  process.env.GOOGLE_GEMINI_BASE_URL = server.baseURL;
  process.env.GOOGLE_API_KEY = 'capture';
  const billing = new LlmAgent({
    name: 'billing',
    model: GEMINI_MODEL,
    description: 'Handles charges and refunds',
    instruction: 'You handle charges and refunds.',
    tools: toolsFor('billing'),
  });
  const triage = new LlmAgent({
    name: 'triage',
    model: GEMINI_MODEL,
    instruction: 'You answer general questions and hand billing questions to billing.',
    tools: toolsFor('triage'),
    subAgents: [billing],
  });
  const runner = new InMemoryRunner({ agent: triage, appName: 'support' });
  const session = await runner.sessionService.createSession({ appName: 'support', userId: 'u1' });
  await tracer.startActiveSpan(
    'support-run',
    { attributes: { 'spanscore.test_case.id': scenario.testCaseId } },
    async span => {
      for await (const event of runner.runAsync({
        userId: 'u1',
        sessionId: session.id,
        newMessage: { role: 'user', parts: [{ text: scenario.prompt }] },
      }))
        void event;
      span.end();
    },
  );
  await server.close();
}
await provider.forceFlush();
writeFixture(
  `captured-google-adk-${versionOf('@google/adk')}-subagents`,
  exporter.getFinishedSpans(),
);
