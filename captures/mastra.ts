/**
 * Mastra as its docs show it: an `Agent` with `createTool` tools, its model an OpenAI-compatible
 * endpoint given as `{ providerId, modelId, url }` (Mastra's model router, real HTTP to the
 * scripted server), and observability through `@mastra/observability` with `@mastra/otel-exporter`
 * (here handed an in-memory span exporter in place of an OTLP one). The test case id goes in as
 * `tracingOptions.metadata.testCaseId`, which the exporter writes as `mastra.metadata.testCaseId`.
 */
import { Agent } from '@mastra/core/agent';
import { Mastra } from '@mastra/core/mastra';
import { mastraTools } from './mastra-tools.js';
import { MODEL, SCENARIOS, scenarioServer } from './scenarios.js';
import { mastraOtelCapture } from './mastra-otel.js';
import { versionOf, writeFixture } from './write-fixture.js';

const tools = mastraTools();

const { exported, observability } = mastraOtelCapture('mastra-travel-agent');
for (const scenario of SCENARIOS) {
  const server = await scenarioServer(scenario);
  const agent = new Agent({
    id: 'travel-agent',
    name: 'travel-agent',
    instructions: 'You help travellers with the weather and flights.',
    model: { providerId: 'scripted', modelId: MODEL, url: server.baseURL, apiKey: 'capture' },
    tools,
  });
  const mastra = new Mastra({
    agents: { travelAgent: agent },
    logger: false,
    observability: observability(),
  });
  await mastra.getAgent('travelAgent').generate(scenario.prompt, {
    maxSteps: 5,
    tracingOptions: { metadata: { testCaseId: scenario.testCaseId } },
  });
  await mastra.shutdown();
  await server.close();
}
writeFixture(`captured-mastra-${versionOf('@mastra/core')}`, exported);
