/**
 * Genkit 1.x: `genkit()` with the `@genkit-ai/compat-oai` plugin pointed at the scripted
 * OpenAI-compatible server, the scenario's tools as `ai.defineTool`, and the agent as a flow
 * (`ai.defineFlow`) that calls `ai.generate({ tools })`, Genkit running the tool loop. Genkit's own
 * OpenTelemetry export: `enableTelemetry({ spanProcessors })` from `genkit/tracing`, as its docs
 * show for sending spans to any OTLP backend. The flow sets the test case id with
 * `setCustomMetadataAttribute('testCaseId', …)`, which Genkit writes as the flow span's
 * `genkit:metadata:testCaseId` attribute.
 */
// Genkit runs OpenTelemetry's 1.x SDK (1.25): its span processors are of that generation.
import { InMemorySpanExporter, SimpleSpanProcessor } from 'sdk-trace-base-1';
import openAICompatible from '@genkit-ai/compat-oai';
import { genkit, z } from 'genkit';
import { JsonTraceSerializer as Otlp052JsonSerializer } from 'otlp-transformer-0.52';
import { enableTelemetry, flushTracing, setCustomMetadataAttribute } from 'genkit/tracing';
import { MODEL, SCENARIOS, TOOLS, runTool, scenarioServer } from './scenarios.js';
import { versionOf, writeFixture } from './write-fixture.js';

const exporter = new InMemorySpanExporter();
await enableTelemetry({
  serviceName: 'genkit-travel-agent',
  // Genkit's own copy of the 1.25 SDK is a separate declaration for TypeScript, the same at runtime.
  spanProcessors: [new SimpleSpanProcessor(exporter) as never],
});

const schemas = {
  get_weather: z.object({ city: z.string() }),
  search_flights: z.object({ from: z.string(), to: z.string(), date: z.string() }),
  book_flight: z.object({ flightId: z.string() }),
};

for (const scenario of SCENARIOS) {
  const server = await scenarioServer(scenario);
  const ai = genkit({
    plugins: [
      openAICompatible({
        name: 'scripted',
        apiKey: 'capture',
        baseURL: server.baseURL,
      }),
    ],
  });
  const tools = Object.entries(TOOLS).map(([name, t]) =>
    ai.defineTool(
      { name, description: t.description, inputSchema: schemas[name as keyof typeof schemas] },
      async input => Promise.resolve(runTool(name, input)),
    ),
  );
  const travelAgent = ai.defineFlow(
    { name: 'travelAgent', inputSchema: z.string(), outputSchema: z.string() },
    async prompt => {
      setCustomMetadataAttribute('testCaseId', scenario.testCaseId);
      const response = await ai.generate({ model: `scripted/${MODEL}`, prompt, tools });
      return response.text;
    },
  );
  const answer = await travelAgent(scenario.prompt);
  if (answer !== scenario.answer) throw new Error(`${scenario.testCaseId}: answered ${answer}`);
  await server.close();
}
await flushTracing();
// Genkit runs OpenTelemetry's 1.x SDK (1.25); its spans are serialized by the exporter release of
// that generation (0.52), as `@opentelemetry/exporter-trace-otlp-http` 0.52 would send them.
writeFixture(
  `captured-genkit-${versionOf('genkit')}`,
  exporter.getFinishedSpans() as never,
  Otlp052JsonSerializer,
);
process.exit(0);
