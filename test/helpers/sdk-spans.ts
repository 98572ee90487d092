import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import { resourceFromAttributes } from '@opentelemetry/resources';

/** A tracer provider whose finished spans can be read back (and cleared between tests). */
export function recordingProvider(service = 'sdk-test'): {
  provider: BasicTracerProvider;
  spans: () => ReadableSpan[];
  reset: () => void;
} {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': service }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  return { provider, spans: () => exporter.getFinishedSpans(), reset: () => exporter.reset() };
}

/** hrTime `[seconds, nanos]` to a bigint of nanoseconds. */
export function hrToNanos([s, ns]: [number, number]): bigint {
  return BigInt(s) * 1_000_000_000n + BigInt(ns);
}
