/**
 * The tool-health scenarios (`health-scenarios.ts`) through the OpenTelemetry project's OpenAI
 * instrumentation, set up as `opentelemetry-openai.ts` is (a tracer and a logger provider exporting
 * both signals over OTLP/HTTP to a local sink, message content on): the model's calls and the tool
 * messages are log records. The agent is a plain loop that runs the tools itself (the
 * instrumentation records no tool span) and answers the model each tool's result or, when the
 * arguments fail the tool's schema, the tool is not one it has, or the tool throws, `{"error": …}`
 * (`loopToolResult`).
 */
import { createRequire } from 'node:module';
import { trace } from '@opentelemetry/api';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { OpenAIInstrumentation } from '@opentelemetry/instrumentation-openai';
import type OpenAIClass from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import {
  HEALTH_SCENARIOS,
  OPENAI_HEALTH_TOOLS,
  healthServer,
  loopToolResult,
} from './health-scenarios.js';
import { startOtlpApp } from './otlp-app.js';
import { startOtlpSink } from './otlp-sink.js';
import { MODEL } from './scenarios.js';
import { versionOf, writeSignalsFixture } from './write-fixture.js';

const sink = await startOtlpSink();
const app = startOtlpApp('otel-openai-health-agent', sink.baseUrl);
const instrumentation = new OpenAIInstrumentation();
registerInstrumentations({
  instrumentations: [instrumentation],
  tracerProvider: app.tracerProvider,
  loggerProvider: app.loggerProvider,
});
instrumentation.setConfig({ captureMessageContent: true });
// Loaded after the instrumentation is enabled, through require, which it patches.
const OpenAI = createRequire(import.meta.url)('openai') as typeof OpenAIClass;
const tracer = trace.getTracer('app');

for (const scenario of HEALTH_SCENARIOS) {
  const server = await healthServer(scenario);
  const client = new OpenAI({ baseURL: server.baseURL, apiKey: 'capture' });
  await tracer.startActiveSpan(
    'health-run',
    { attributes: { 'spanscore.test_case.id': scenario.testCaseId } },
    async span => {
      const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: scenario.prompt }];
      for (;;) {
        const completion = await client.chat.completions.create({
          model: MODEL,
          messages,
          tools: OPENAI_HEALTH_TOOLS,
        });
        const message = completion.choices[0]!.message;
        messages.push(message);
        if (!message.tool_calls?.length) break;
        for (const call of message.tool_calls)
          if (call.type === 'function')
            messages.push({
              role: 'tool',
              tool_call_id: call.id,
              content: loopToolResult(call.function.name, call.function.arguments),
            });
      }
      span.end();
    },
  );
  await server.close();
}
await app.flush();
writeSignalsFixture(
  `captured-opentelemetry-openai-${versionOf('@opentelemetry/instrumentation-openai')}-health`,
  sink.requests,
  sink.logRequests,
);
await app.tracerProvider.shutdown();
await app.loggerProvider.shutdown();
await sink.close();
