/**
 * OpenLIT's SDK (`openlit`) as its README shows it: `openlit.init` with an OTLP endpoint (a local
 * sink standing in for spanscore; OpenLIT sets up its own tracer, logger and meter providers and
 * sends all three signals there) and the `openai` module given for manual patching. It records a
 * `chat <model>` span per model call with `gen_ai.input.messages` / `gen_ai.output.messages`
 * (OTel GenAI parts: the tool results as `tool_call_response` parts of the next call's input),
 * and its events as log records. The test case id is an attribute on a parent span, as spanscore
 * documents for any framework.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { trace } from '@opentelemetry/api';
import OpenAI from 'openai';
import { Openlit } from 'openlit';
import { runOpenAiChatLoop } from '../openai-chat-loop.js';
import { startOtlpSink } from '../otlp-sink.js';
import { SCENARIOS, scenarioServer } from '../scenarios.js';
import { versionOf, writeSignalsFixture } from '../write-fixture.js';

const here = new URL('./', import.meta.url);
const sink = await startOtlpSink();
// OpenLIT fetches model prices from GitHub at start; no network here, so an empty price list.
const prices = join(mkdtempSync(join(tmpdir(), 'openlit-')), 'pricing.json');
writeFileSync(prices, '{}');
Openlit.init({
  applicationName: 'openlit-travel-agent',
  otlpEndpoint: sink.baseUrl,
  disableBatch: true,
  pricingJson: prices,
  instrumentations: { openai: OpenAI },
});
const tracer = trace.getTracer('app');
for (const scenario of SCENARIOS) {
  const server = await scenarioServer(scenario);
  const client = new OpenAI({ baseURL: server.baseURL, apiKey: 'capture' });
  await tracer.startActiveSpan(
    'travel-run',
    { attributes: { 'spanscore.test_case.id': scenario.testCaseId } },
    async span => {
      // This folder's openai is the same release as the workspace's, in another node_modules.
      await runOpenAiChatLoop(client as never, scenario);
      span.end();
    },
  );
  await server.close();
}
// OpenLIT exports each span as it ends (disableBatch), and its calls are not awaited: wait until
// nothing more has arrived for half a second.
for (let seen = -1; seen !== sink.spanCount() + sink.logCount();) {
  seen = sink.spanCount() + sink.logCount();
  await new Promise(r => setTimeout(r, 500));
}
writeSignalsFixture(
  `captured-openlit-${versionOf('openlit', here)}`,
  sink.requests,
  sink.logRequests,
);
await sink.close();
process.exit(0);
