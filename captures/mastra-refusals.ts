/**
 * The refusal scenarios (`refusal-scenarios.ts`) through Mastra, set up as `mastra-health.ts` is:
 * an `Agent` with the refusal tools as `createTool` tools (`lookup_booking` with an
 * `outputSchema`, which Mastra checks after the tool ran), its model the scripted
 * OpenAI-compatible server, observability through `@mastra/otel-exporter`.
 */
import { Agent } from '@mastra/core/agent';
import { Mastra } from '@mastra/core/mastra';
import { createTool } from '@mastra/core/tools';
import { mastraOtelCapture } from './mastra-otel.js';
import {
  REFUSAL_SCENARIOS,
  REFUSAL_TOOLS,
  refusalServer,
  runRefusalTool,
} from './refusal-scenarios.js';
import { MODEL } from './scenarios.js';
import { versionOf, writeFixture } from './write-fixture.js';

const tools = Object.fromEntries(
  Object.entries(REFUSAL_TOOLS).map(([name, t]) => [
    name,
    createTool({
      id: name,
      description: t.description,
      inputSchema: t.schema,
      ...(t.output && { outputSchema: t.output }),
      // `never`: one factory for tools with and without an output schema.
      execute: (input: unknown) => Promise.resolve(runRefusalTool(name, input) as never),
    }),
  ]),
);

const { exported, observability } = mastraOtelCapture('mastra-refusals-agent');
for (const scenario of REFUSAL_SCENARIOS) {
  const server = await refusalServer(scenario);
  const agent = new Agent({
    id: 'refusals-agent',
    name: 'refusals-agent',
    instructions: 'You help travellers with the weather, money and bookings.',
    model: { providerId: 'scripted', modelId: MODEL, url: server.baseURL, apiKey: 'capture' },
    tools,
  });
  const mastra = new Mastra({
    agents: { refusalsAgent: agent },
    logger: false,
    observability: observability(),
  });
  try {
    await mastra.getAgent('refusalsAgent').generate(scenario.prompt, {
      maxSteps: 6,
      tracingOptions: { metadata: { testCaseId: scenario.testCaseId } },
    });
  } catch (error) {
    console.log(`mastra: ${scenario.testCaseId}: the run failed: ${(error as Error).message}`);
  }
  await mastra.shutdown();
  await server.close();
}
writeFixture(`captured-mastra-${versionOf('@mastra/core')}-refusals`, exported);
