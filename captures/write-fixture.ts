import { readFileSync, writeFileSync } from 'node:fs';
import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';

const OUT = new URL('../test/fixtures/otlp/', import.meta.url);

/**
 * Writes spans as `test/fixtures/otlp/<name>.otlp.json`, serialized exactly as the OTLP/HTTP JSON
 * exporter sends them; `name` carries the framework's version (`captured-langfuse-5.11.1`).
 */
export function writeFixture(name: string, spans: readonly ReadableSpan[]): void {
  const json = JSON.parse(
    new TextDecoder().decode(JsonTraceSerializer.serializeRequest([...spans])),
  ) as unknown;
  writeFileSync(new URL(`${name}.otlp.json`, OUT), `${JSON.stringify(json, null, 2)}\n`);
  console.log(`${name}: ${spans.length} spans`);
}

/** The installed version of a package of this workspace, for fixture names. */
export function versionOf(pkg: string): string {
  const file = new URL(`./node_modules/${pkg}/package.json`, import.meta.url);
  return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
}

/**
 * A tracer provider that keeps every span in memory, for one capture: the async context manager
 * enabled (so spans nest across awaits), `service.name` set, and the exporter behind the span
 * processor a framework asks for (a plain `SimpleSpanProcessor` unless given).
 */
export function recordingProvider(
  serviceName: string,
  processorFor: (exporter: InMemorySpanExporter) => SpanProcessor = e => new SimpleSpanProcessor(e),
): { provider: BasicTracerProvider; exporter: InMemorySpanExporter } {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': serviceName }),
    spanProcessors: [processorFor(exporter)],
  });
  return { provider, exporter };
}
