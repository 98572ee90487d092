import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { DEMO_TEST_CASES, runSampleAgent } from './sample-agent.js';

/** The sample agent's traffic, sent: its runs' names, and how to let go of its tracer. */
export interface SampleTraffic {
  runs: string[];
  /** How many of `runs` (the first) are the demo suite's test cases; the rest are for tool health. */
  testCases: number;
  /** Stops its tracer provider and context manager (the process's OpenTelemetry globals). */
  shutdown(): Promise<void>;
}

/**
 * Runs the sample agent ({@link runSampleAgent}: the demo suite's three test cases, then three
 * production runs for tool health) with the OpenTelemetry SDK as an app sets it up, its spans
 * exported over OTLP/HTTP to `url` (a `/v1/traces` endpoint) as service `demo-travel-agent`;
 * resolves once they are all sent. Sets the process's global tracer provider and context manager.
 */
export async function sendSampleTraffic(url: string): Promise<SampleTraffic> {
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'demo-travel-agent' }),
    spanProcessors: [
      new BatchSpanProcessor(new OTLPTraceExporter({ url }), { scheduledDelayMillis: 100 }),
    ],
  });
  trace.setGlobalTracerProvider(provider);
  const runs = await runSampleAgent();
  await provider.forceFlush();
  return {
    runs,
    testCases: DEMO_TEST_CASES,
    async shutdown() {
      await provider.shutdown();
      trace.disable();
      context.disable();
    },
  };
}
