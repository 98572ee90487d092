/**
 * VoltAgent (`@voltagent/core`): an `Agent` with `createTool` tools and an AI SDK 6 model
 * (`@ai-sdk/openai-compatible` against the scripted server), traced by VoltAgent's own
 * OpenTelemetry observability (`VoltAgentObservability` with an in-memory exporter behind a
 * `SimpleSpanProcessor`, as its `spanProcessors` option takes any processor). In this folder
 * because `@voltagent/core` 2.x needs `ai` 6, while the workspace above pins `ai` 7.
 */
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { Agent, VoltAgentObservability, createTool } from '@voltagent/core';
import { z } from 'zod';
import { MODEL, SCENARIOS, TOOLS, runTool, scenarioServer } from '../scenarios.js';
import { versionOf, writeFixture } from '../write-fixture.js';

const exporter = new InMemorySpanExporter();
const observability = new VoltAgentObservability({
  serviceName: 'voltagent-travel-agent',
  spanProcessors: [new SimpleSpanProcessor(exporter)],
});

const schemas = {
  get_weather: z.object({ city: z.string() }),
  search_flights: z.object({ from: z.string(), to: z.string(), date: z.string() }),
  book_flight: z.object({ flightId: z.string() }),
};
const tools = Object.entries(TOOLS).map(([name, t]) =>
  createTool({
    name,
    description: t.description,
    parameters: schemas[name as keyof typeof schemas],
    execute: (args: unknown) => Promise.resolve(runTool(name, args)),
  }),
);

for (const scenario of SCENARIOS) {
  const server = await scenarioServer(scenario);
  const agent = new Agent({
    name: 'travel-agent',
    instructions: 'You help travellers.',
    model: createOpenAICompatible({ name: 'scripted', baseURL: server.baseURL, apiKey: 'capture' })(
      MODEL,
    ),
    tools,
    observability,
  });
  // The test case id as spanscore documents it for any framework: an attribute of the run's
  // root span, here a span of VoltAgent's own tracer around the agent call.
  await observability.startActiveSpan(
    'travel-run',
    { attributes: { 'spanscore.test_case.id': scenario.testCaseId } },
    async span => {
      const result = await agent.generateText(scenario.prompt, { parentSpan: span });
      if (result.text !== scenario.answer)
        throw new Error(`${scenario.testCaseId}: ${result.text}`);
      span.end();
    },
  );
  await server.close();
}
await observability.forceFlush();
writeFixture(
  `captured-voltagent-${versionOf('@voltagent/core', new URL('./', import.meta.url))}`,
  exporter.getFinishedSpans(),
);
await observability.shutdown();
process.exit(0);
