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
import { Observability } from '@mastra/observability';
import { OtelExporter } from '@mastra/otel-exporter';
import { ExportResultCode } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import { z } from 'zod';
import {
  AGENT_TOOLS,
  agentScenarioServer,
  agentScenarios,
  runAgentTool,
  toolsOf,
  type AgentToolName,
} from './agent-scenarios.js';
import { MODEL } from './scenarios.js';
import { versionOf, writeFixture } from './write-fixture.js';

const SCHEMAS = {
  lookup_faq: z.object({ topic: z.string() }),
  lookup_order: z.object({ orderId: z.string() }),
  issue_refund: z.object({ orderId: z.string(), amount: z.number() }),
} satisfies Record<AgentToolName, z.ZodObject>;
const toolsFor = (agent: 'triage' | 'billing') =>
  Object.fromEntries(
    toolsOf(agent).map(name => [
      name,
      createTool({
        id: name,
        description: AGENT_TOOLS[name].description,
        inputSchema: SCHEMAS[name],
        execute: (input: unknown) => Promise.resolve(runAgentTool(name, input)),
      }),
    ]),
  );

const exported: ReadableSpan[] = [];
const spans: SpanExporter = {
  export(batch, done) {
    exported.push(...batch);
    done({ code: ExportResultCode.SUCCESS });
  },
  shutdown: () => Promise.resolve(),
};
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
    observability: new Observability({
      configs: {
        otel: {
          serviceName: 'mastra-support-team',
          exporters: [
            new OtelExporter({
              provider: { custom: { endpoint: 'http://127.0.0.1:4318', protocol: 'http/json' } },
              exporter: spans,
              signals: { logs: false },
            }),
          ],
        },
      },
    }),
  });
  await mastra.getAgent('triage').generate(scenario.prompt, {
    maxSteps: 8,
    tracingOptions: { metadata: { testCaseId: scenario.testCaseId } },
  });
  await mastra.shutdown();
  await server.close();
}
writeFixture(`captured-mastra-${versionOf('@mastra/core')}-agents`, exported);
