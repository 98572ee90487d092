/**
 * Mastra through `@mastra/arize`, the Arize/Phoenix exporter: Mastra's spans turned into
 * OpenInference spans and sent as OTLP/HTTP protobuf to a collector endpoint (here a local one
 * that keeps each request body as sent). The test case id goes in as
 * `tracingOptions.metadata.testCaseId`, which the exporter writes into OpenInference's JSON
 * `metadata` attribute. Two fixtures of each run: `.otlp.json`, the spans as the exporter handed
 * them to its OTLP exporter (after the OpenInference conversion), serialized as the JSON exporter
 * sends them; and `.otlp.pb`, the protobuf bodies it sent, concatenated (protobuf concatenation
 * merges their `resourceSpans`, so they read as one request). A fourth run, in fixtures of its
 * own (`-tool-error`), has the model call `get_weather` for a city whose tool throws.
 */
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ArizeExporter } from '@mastra/arize';
import { Agent } from '@mastra/core/agent';
import { Mastra } from '@mastra/core/mastra';
import { Observability } from '@mastra/observability';
import { mastraTools } from './mastra-tools.js';
import { MODEL, SCENARIOS, runTool, scenarioServer, type Scenario } from './scenarios.js';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { versionOf, writeFixture } from './write-fixture.js';

let bodies: Buffer[] = [];
let converted: ReadableSpan[] = [];
const sink = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const ok = req.method === 'POST' && req.url === '/v1/traces';
    if (ok && String(req.headers['content-type']).startsWith('application/x-protobuf'))
      bodies.push(Buffer.concat(chunks));
    res.writeHead(ok ? 200 : 404, { 'content-type': 'application/x-protobuf' }).end();
  });
});
await new Promise<void>(resolve => sink.listen(0, '127.0.0.1', resolve));
const endpoint = `http://127.0.0.1:${(sink.address() as AddressInfo).port}/v1/traces`;

// The same tools, but `get_weather` throws for Atlantis (the `-tool-error` run).
const tools = mastraTools((name, input) => {
  if ((input as { city?: string }).city === 'Atlantis')
    throw new Error('no weather station in Atlantis');
  return runTool(name, input);
});

let patched = false;
async function run(scenario: Scenario): Promise<void> {
  const server = await scenarioServer(scenario);
  const agent = new Agent({
    id: 'travel-agent',
    name: 'travel-agent',
    instructions: 'You help travellers with the weather and flights.',
    model: { providerId: 'scripted', modelId: MODEL, url: server.baseURL, apiKey: 'capture' },
    tools,
  });
  const arize = new ArizeExporter({ endpoint, projectName: 'travel-agent' });
  if (!patched) {
    // The OTLP exporter class the OpenInference one extends (Arize's own release of it): record
    // what it is handed, then send as it does.
    const inner = (arize as unknown as { config: { exporter: object } }).config.exporter;
    const base = Object.getPrototypeOf(Object.getPrototypeOf(inner)) as {
      export: (spans: ReadableSpan[], done: (r: unknown) => void) => void;
    };
    const send = base.export;
    base.export = function (this: unknown, spans, done) {
      converted.push(...spans);
      send.call(this, spans, done);
    };
    patched = true;
  }
  const mastra = new Mastra({
    agents: { travelAgent: agent },
    logger: false,
    observability: new Observability({
      configs: { arize: { serviceName: 'mastra-travel-agent', exporters: [arize] } },
    }),
  });
  await mastra.getAgent('travelAgent').generate(scenario.prompt, {
    maxSteps: 5,
    tracingOptions: { metadata: { testCaseId: scenario.testCaseId } },
  });
  await mastra.shutdown();
  await server.close();
}

const name = `captured-mastra-${versionOf('@mastra/core')}-arize-${versionOf('@mastra/arize')}`;
function write(fixture: string): void {
  writeFixture(fixture, converted);
  writeFileSync(
    new URL(`../test/fixtures/otlp/${fixture}.otlp.pb`, import.meta.url),
    Buffer.concat(bodies),
  );
  console.log(`${fixture}: ${converted.length} spans, ${bodies.length} protobuf requests`);
  converted = [];
  bodies = [];
}

for (const scenario of SCENARIOS) await run(scenario);
write(name);
await run({
  testCaseId: 'tool-error',
  prompt: 'What is the weather in Atlantis?',
  turns: [[{ id: 'call_weather_atlantis', name: 'get_weather', arguments: { city: 'Atlantis' } }]],
  answer: 'I could not get the weather in Atlantis.',
});
write(`${name}-tool-error`);
await new Promise<void>(resolve => sink.close(() => resolve()));
