/**
 * Strands Agents for TypeScript (`@strands-agents/sdk`): an `Agent` with `tool()` tools and its
 * Anthropic model (`AnthropicModel`, streaming, `@anthropic-ai/sdk` against
 * `scripted-anthropic-server.ts`), traced by Strands' own OpenTelemetry instrumentation through the global provider (a
 * registered `NodeTracerProvider`, as its telemetry docs show for "your own provider"). The test
 * case id is one of the agent's `traceAttributes`, which Strands writes on every span. In this
 * folder because its peer dependencies pin OpenTelemetry exporter releases the workspace above
 * does not; it needs Node.js 22 or newer.
 *
 * Not its OpenAI model: Strands 1.19's Chat Completions stream adapter starts a block for each
 * streamed tool call and closes them all only at the finish reason, and the agent then runs only
 * the last of several calls in one reply (seen here: `same-tool-twice` ran Lisbon, not Paris; the
 * same through its Vercel model adapter). The Anthropic stream closes each block before the next.
 */
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { Agent, tool } from '@strands-agents/sdk';
import { AnthropicModel } from '@strands-agents/sdk/models/anthropic';
import { z } from 'zod';
import { SCENARIOS, TOOLS, runTool } from '../scenarios.js';
import { scriptedAnthropicServer } from '../scripted-anthropic-server.js';
import { versionOf, writeFixture } from '../write-fixture.js';

const MODEL = 'claude-capture';
const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({
  resource: resourceFromAttributes({ 'service.name': 'strands-travel-agent' }),
  spanProcessors: [new SimpleSpanProcessor(exporter)],
});
provider.register();

const schemas = {
  get_weather: z.object({ city: z.string() }),
  search_flights: z.object({ from: z.string(), to: z.string(), date: z.string() }),
  book_flight: z.object({ flightId: z.string() }),
};
const tools = Object.entries(TOOLS).map(([name, t]) =>
  tool({
    name,
    description: t.description,
    inputSchema: schemas[name as keyof typeof schemas],
    callback: (input: unknown) => runTool(name, input) as never,
  }),
);

for (const scenario of SCENARIOS) {
  const server = await scriptedAnthropicServer(scenario, MODEL);
  const agent = new Agent({
    name: 'travel-agent',
    model: new AnthropicModel({
      modelId: MODEL,
      maxTokens: 512,
      apiKey: 'capture',
      clientConfig: { baseURL: server.baseURL, maxRetries: 0 },
    }),
    tools,
    printer: false,
    traceAttributes: { 'spanscore.test_case.id': scenario.testCaseId },
  });
  await agent.invoke(scenario.prompt);
  await server.close();
}
await provider.forceFlush();
writeFixture(
  `captured-strands-${versionOf('@strands-agents/sdk', new URL('./', import.meta.url))}`,
  exporter.getFinishedSpans(),
);
await provider.shutdown();
