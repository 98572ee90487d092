/**
 * Mastra as its docs show it: an `Agent` with `createTool` tools, its model an OpenAI-compatible
 * endpoint given as `{ providerId, modelId, url }` (Mastra's model router, real HTTP to the
 * scripted server), and observability through `@mastra/observability` with `@mastra/otel-exporter`
 * (here handed an in-memory span exporter in place of an OTLP one). The test case id goes in as
 * `tracingOptions.metadata.testCaseId`, which the exporter writes as `mastra.metadata.testCaseId`.
 */
import { Agent } from '@mastra/core/agent';
import { Mastra } from '@mastra/core/mastra';
import { Observability } from '@mastra/observability';
import { OtelExporter } from '@mastra/otel-exporter';
import { ExportResultCode } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import { mastraTools } from './mastra-tools.js';
import { MODEL, SCENARIOS, scenarioServer } from './scenarios.js';
import { versionOf, writeFixture } from './write-fixture.js';

const tools = mastraTools();

// Not InMemorySpanExporter: the OTel exporter shuts its exporter down with the Mastra instance,
// and InMemorySpanExporter forgets its spans on shutdown.
const exported: ReadableSpan[] = [];
const spans: SpanExporter = {
  export(batch, done) {
    exported.push(...batch);
    done({ code: ExportResultCode.SUCCESS });
  },
  shutdown: () => Promise.resolve(),
};
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
    observability: new Observability({
      configs: {
        otel: {
          serviceName: 'mastra-travel-agent',
          exporters: [
            new OtelExporter({
              // A provider is required; its endpoint goes unused when an exporter is given.
              provider: { custom: { endpoint: 'http://127.0.0.1:4318', protocol: 'http/json' } },
              exporter: spans,
              signals: { logs: false },
            }),
          ],
        },
      },
    }),
  });
  await mastra.getAgent('travelAgent').generate(scenario.prompt, {
    maxSteps: 5,
    tracingOptions: { metadata: { testCaseId: scenario.testCaseId } },
  });
  await mastra.shutdown();
  await server.close();
}
writeFixture(`captured-mastra-${versionOf('@mastra/core')}`, exported);
