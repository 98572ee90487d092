/**
 * Mastra's observability for the Mastra captures (`mastra.ts`, `mastra-agents.ts`):
 * `@mastra/observability` with `@mastra/otel-exporter`, handed an exporter that keeps every span
 * it is given. Not InMemorySpanExporter: the OTel exporter shuts its exporter down with the
 * Mastra instance, and InMemorySpanExporter forgets its spans on shutdown.
 */
import { Observability } from '@mastra/observability';
import { OtelExporter } from '@mastra/otel-exporter';
import { ExportResultCode } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';

/** The spans exported so far, and a new `Observability` for each Mastra instance. */
export function mastraOtelCapture(serviceName: string): {
  exported: ReadableSpan[];
  observability: () => Observability;
} {
  const exported: ReadableSpan[] = [];
  const spans: SpanExporter = {
    export(batch, done) {
      exported.push(...batch);
      done({ code: ExportResultCode.SUCCESS });
    },
    shutdown: () => Promise.resolve(),
  };
  return {
    exported,
    observability: () =>
      new Observability({
        configs: {
          otel: {
            serviceName,
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
  };
}
