/**
 * VoltAgent with a sub-agent, as its docs show supervisors: a `triage` agent whose `subAgents`
 * list the `billing` agent (VoltAgent offers the model a `delegate_task` tool taking the task and
 * its `targetAgents`), each agent with its own `createTool` tools on an AI SDK 6 model against
 * the scripted server, traced by VoltAgent's own observability (an in-memory exporter). The test
 * case id on the run's root span, passed as `parentSpan` (see `voltagent.ts`). The two scenarios
 * of `../agent-scenarios.ts`.
 */
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { Agent, VoltAgentObservability, createTool } from '@voltagent/core';
import { z } from 'zod';
import {
  AGENT_TOOLS,
  agentScenarioServer,
  agentScenarios,
  runAgentTool,
  toolsOf,
  type AgentToolName,
} from '../agent-scenarios.js';
import { MODEL } from '../scenarios.js';
import { versionOf, writeFixture } from '../write-fixture.js';

const exporter = new InMemorySpanExporter();
const observability = new VoltAgentObservability({
  serviceName: 'voltagent-support-team',
  spanProcessors: [new SimpleSpanProcessor(exporter)],
});
const SCHEMAS = {
  lookup_faq: z.object({ topic: z.string() }),
  lookup_order: z.object({ orderId: z.string() }),
  issue_refund: z.object({ orderId: z.string(), amount: z.number() }),
} satisfies Record<AgentToolName, z.ZodObject>;
const toolsFor = (agent: 'triage' | 'billing') =>
  toolsOf(agent).map(name =>
    createTool({
      name,
      description: AGENT_TOOLS[name].description,
      parameters: SCHEMAS[name],
      execute: (args: unknown) => Promise.resolve(runAgentTool(name, args)),
    }),
  );

const scenarios = agentScenarios('delegate_task', {
  task: 'Refund the duplicate charge of order 42.',
  targetAgents: ['billing'],
});
for (const scenario of scenarios) {
  const server = await agentScenarioServer(scenario);
  const model = createOpenAICompatible({
    name: 'scripted',
    baseURL: server.baseURL,
    apiKey: 'capture',
  })(MODEL);
  const billing = new Agent({
    name: 'billing',
    instructions: 'You handle charges and refunds.',
    model,
    tools: toolsFor('billing'),
    observability,
  });
  const triage = new Agent({
    name: 'triage',
    instructions: 'You answer general questions and hand billing questions to billing.',
    model,
    tools: toolsFor('triage'),
    subAgents: [billing],
    observability,
  });
  await observability.startActiveSpan(
    'support-run',
    { attributes: { 'spanscore.test_case.id': scenario.testCaseId } },
    async span => {
      await triage.generateText(scenario.prompt, { parentSpan: span, maxSteps: 8 });
      span.end();
    },
  );
  await server.close();
}
await observability.forceFlush();
writeFixture(
  `captured-voltagent-${versionOf('@voltagent/core', new URL('./', import.meta.url))}-subagents`,
  exporter.getFinishedSpans(),
);
await observability.shutdown();
process.exit(0);
