/**
 * Mastra with a sub-agent, as its docs show agents as tools: a `triage` agent whose `agents` list
 * the `billing` agent (Mastra offers the model an `agent-billing` tool taking a `prompt`), each
 * agent with its own `createTool` tools, on an OpenAI-compatible model against the scripted
 * server, traced by `@mastra/observability` with `@mastra/otel-exporter` (an in-memory exporter,
 * as in `mastra.ts`). The test case id as `tracingOptions.metadata.testCaseId`. The two
 * scenarios of `agent-scenarios.ts`.
 */
import { Agent } from '@mastra/core/agent';
import { Mastra } from '@mastra/core/mastra';
import { createTool } from '@mastra/core/tools';
import {
  AGENT_TOOLS,
  agentScenarioServer,
  agentScenarios,
  runAgentTool,
  toolsOf,
} from './agent-scenarios.js';
import { AGENT_TOOL_SCHEMAS } from './tool-schemas.js';
import { MODEL } from './scenarios.js';
import { mastraOtelCapture } from './mastra-otel.js';
import { versionOf, writeFixture } from './write-fixture.js';

const toolsFor = (agent: 'triage' | 'billing') =>
  Object.fromEntries(
    toolsOf(agent).map(name => [
      name,
      createTool({
        id: name,
        description: AGENT_TOOLS[name].description,
        inputSchema: AGENT_TOOL_SCHEMAS[name],
        execute: (input: unknown) => Promise.resolve(runAgentTool(name, input)),
      }),
    ]),
  );

const { exported, observability } = mastraOtelCapture('mastra-support-team');
const scenarios = agentScenarios('agent-billing', {
  prompt: 'Refund the duplicate charge of order 42.',
});
for (const scenario of scenarios) {
  const server = await agentScenarioServer(scenario);
  const model = { providerId: 'scripted', modelId: MODEL, url: server.baseURL, apiKey: 'capture' };
  const billing = new Agent({
    id: 'billing',
    name: 'billing',
    description: 'Handles charges and refunds',
    instructions: 'You handle charges and refunds.',
    model,
    tools: toolsFor('billing'),
  });
  const triage = new Agent({
    id: 'triage',
    name: 'triage',
    instructions: 'You answer general questions and hand billing questions to billing.',
    model,
    tools: toolsFor('triage'),
    agents: { billing },
  });
  const mastra = new Mastra({
    agents: { triage, billing },
    logger: false,
    observability: observability(),
  });
  await mastra.getAgent('triage').generate(scenario.prompt, {
    maxSteps: 8,
    tracingOptions: { metadata: { testCaseId: scenario.testCaseId } },
  });
  await mastra.shutdown();
  await server.close();
}
writeFixture(`captured-mastra-${versionOf('@mastra/core')}-agents`, exported);
