/**
 * Traceloop's node SDK (`@traceloop/node-server-sdk`, OpenLLMetry) as its docs show it:
 * `initialize` with its OpenAI instrumentation (here given the `openai` module explicitly, and an
 * in-memory exporter with `disableBatch`), the agent loop in `withAgent`, each tool call in
 * `withTool`, the real `openai` client against the scripted server. The test case id is set as
 * spanscore documents it for any framework: an attribute on a parent span.
 */
import { trace } from '@opentelemetry/api';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import * as traceloop from '@traceloop/node-server-sdk';
import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { MODEL, OPENAI_TOOLS, SCENARIOS, runTool, scenarioServer } from './scenarios.js';
import { versionOf, writeFixture } from './write-fixture.js';

const exporter = new InMemorySpanExporter();
traceloop.initialize({
  appName: 'traceloop-travel-agent',
  exporter,
  disableBatch: true,
  silenceInitializationMessage: true,
  traceloopSyncEnabled: false, // no prompt registry: Traceloop's cloud is not reachable here
  // The ESM class is the one this script uses; the SDK's types name the CommonJS one.
  instrumentModules: { openAI: OpenAI as never },
});
const tracer = trace.getTracer('app');

for (const scenario of SCENARIOS) {
  const server = await scenarioServer(scenario);
  const client = new OpenAI({ baseURL: server.baseURL, apiKey: 'capture' });
  await tracer.startActiveSpan(
    'travel-run',
    { attributes: { 'spanscore.test_case.id': scenario.testCaseId } },
    async span => {
      await traceloop.withAgent({ name: 'travel-agent' }, async () => {
        const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: scenario.prompt }];
        for (;;) {
          const completion = await client.chat.completions.create({
            model: MODEL,
            messages,
            tools: OPENAI_TOOLS,
          });
          const message = completion.choices[0]!.message;
          messages.push(message);
          if (!message.tool_calls?.length) break;
          for (const call of message.tool_calls) {
            if (call.type !== 'function') continue;
            const args: unknown = JSON.parse(call.function.arguments);
            // The arguments go through withTool, which records them as the entity's input.
            const result: unknown = await traceloop.withTool(
              { name: call.function.name },
              (input: unknown) => Promise.resolve(runTool(call.function.name, input)),
              args,
            );
            messages.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify(result) });
          }
        }
      });
      span.end();
    },
  );
  await server.close();
}
await traceloop.forceFlush();
writeFixture(
  `captured-traceloop-sdk-${versionOf('@traceloop/node-server-sdk')}`,
  exporter.getFinishedSpans(),
);
