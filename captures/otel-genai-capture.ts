/**
 * One capture of an OpenAI instrumentation that writes the messages as OTLP log records (the
 * OpenTelemetry project's, Elastic's EDOT): the app of `otlp-app.ts` exporting both signals to a
 * local sink, the three scenarios run with the plain chat loop, each under a parent span carrying
 * the test case id (as spanscore documents for any framework). Captured with message content
 * (`captureMessageContent`, what `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true` sets:
 * arguments and results recorded) and, when `withoutContent`, also without it (the default: tool
 * names and call ids only) as `<name>-no-content`. The same spans and records exported as
 * protobuf are written beside the content capture (`<name>.otlp.pb`, `<name>.logs.pb`).
 */
import { trace } from '@opentelemetry/api';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import type OpenAIClass from 'openai';
import { runOpenAiChatLoop } from './openai-chat-loop.js';
import { startOtlpApp } from './otlp-app.js';
import { startOtlpSink } from './otlp-sink.js';
import { SCENARIOS, scenarioServer } from './scenarios.js';
import { writeProtobufFixture, writeSignalsFixture } from './write-fixture.js';

/** What the capture needs of an instrumentation: to be registered and to switch content capture. */
export interface GenAiInstrumentation {
  setConfig(config: { captureMessageContent: boolean }): void;
}

/**
 * Runs the capture. `loadOpenAI` requires the `openai` release the instrumentation supports, from
 * the capture's own folder; it is called once the instrumentation is enabled, since require is
 * what the instrumentation patches.
 */
export async function captureGenAiLogs(
  name: string,
  serviceName: string,
  instrumentation: GenAiInstrumentation,
  withoutContent: boolean,
  loadOpenAI: () => typeof OpenAIClass,
): Promise<void> {
  const sink = await startOtlpSink();
  const app = startOtlpApp(serviceName, sink.baseUrl, true);
  registerInstrumentations({
    instrumentations: [instrumentation as never],
    tracerProvider: app.tracerProvider,
    loggerProvider: app.loggerProvider,
  });
  // Loaded after the instrumentation is enabled, through require, which it patches.
  const OpenAI = loadOpenAI();
  const tracer = trace.getTracer('app');
  for (const content of withoutContent ? [true, false] : [true]) {
    instrumentation.setConfig({ captureMessageContent: content });
    sink.requests.length = 0;
    sink.logRequests.length = 0;
    sink.protobuf.traces.length = 0;
    sink.protobuf.logs.length = 0;
    for (const scenario of SCENARIOS) {
      const server = await scenarioServer(scenario);
      const client = new OpenAI({ baseURL: server.baseURL, apiKey: 'capture' });
      await tracer.startActiveSpan(
        'travel-run',
        { attributes: { 'spanscore.test_case.id': scenario.testCaseId } },
        async span => {
          await runOpenAiChatLoop(client, scenario);
          span.end();
        },
      );
      await server.close();
    }
    await app.flush();
    const fixture = content ? name : `${name}-no-content`;
    writeSignalsFixture(fixture, sink.requests, sink.logRequests);
    if (content) writeProtobufFixture(fixture, sink.protobuf.traces, sink.protobuf.logs);
  }
  await app.tracerProvider.shutdown();
  await app.loggerProvider.shutdown();
  await sink.close();
}
