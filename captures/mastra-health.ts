/**
 * The tool-health scenarios (`health-scenarios.ts`) through Mastra, set up as `mastra.ts` is: an
 * `Agent` with the two health tools as `createTool` tools (Mastra validates each call's input
 * against `inputSchema` and hands the model a validation error instead of running the tool), its
 * model the scripted OpenAI-compatible server, observability through `@mastra/otel-exporter`.
 */
import { Agent } from '@mastra/core/agent';
import { Mastra } from '@mastra/core/mastra';
import { createTool } from '@mastra/core/tools';
import { HEALTH_SCENARIOS, HEALTH_TOOLS, healthServer, runHealthTool } from './health-scenarios.js';
import { mastraOtelCapture } from './mastra-otel.js';
import { MODEL } from './scenarios.js';
import { versionOf, writeFixture } from './write-fixture.js';

const tools = Object.fromEntries(
  Object.entries(HEALTH_TOOLS).map(([name, t]) => [
    name,
    createTool({
      id: name,
      description: t.description,
      inputSchema: t.schema,
      execute: (input: unknown) => Promise.resolve(runHealthTool(name, input)),
    }),
  ]),
);

const { exported, observability } = mastraOtelCapture('mastra-health-agent');
for (const scenario of HEALTH_SCENARIOS) {
  const server = await healthServer(scenario);
  const agent = new Agent({
    id: 'health-agent',
    name: 'health-agent',
    instructions: 'You help travellers with the weather and money.',
    model: { providerId: 'scripted', modelId: MODEL, url: server.baseURL, apiKey: 'capture' },
    tools,
  });
  const mastra = new Mastra({
    agents: { healthAgent: agent },
    logger: false,
    observability: observability(),
  });
  try {
    await mastra.getAgent('healthAgent').generate(scenario.prompt, {
      maxSteps: 6,
      tracingOptions: { metadata: { testCaseId: scenario.testCaseId } },
    });
  } catch (error) {
    console.log(`mastra: ${scenario.testCaseId}: the run failed: ${(error as Error).message}`);
  }
  await mastra.shutdown();
  await server.close();
}
writeFixture(`captured-mastra-${versionOf('@mastra/core')}-health`, exported);
