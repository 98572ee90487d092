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

/** Turns finished spans into an OTLP/HTTP JSON request body, as an exporter release does. */
export interface TraceSerializer {
  serializeRequest(spans: never[]): Uint8Array | undefined;
}

/**
 * Writes spans as `test/fixtures/otlp/<name>.otlp.json`, serialized exactly as the OTLP/HTTP JSON
 * exporter sends them; `name` carries the framework's version (`captured-langfuse-5.11.1`).
 * `serializer` is the exporter release matching the framework's OpenTelemetry SDK (a 1.x SDK's
 * spans need the transformer of its own generation); the current one unless given.
 */
export function writeFixture(
  name: string,
  spans: readonly ReadableSpan[],
  serializer: TraceSerializer = JsonTraceSerializer,
): void {
  const json = JSON.parse(
    new TextDecoder().decode(serializer.serializeRequest([...spans] as never[])),
  ) as OtlpJsonRequest;
  writeFixtureRequest(name, json);
}

/** An OTLP/HTTP JSON trace request body, as exporters send it. */
export interface OtlpJsonRequest {
  resourceSpans: Array<{ scopeSpans: Array<{ spans: unknown[] }> }>;
}

/**
 * Writes an OTLP/HTTP JSON request as a fixture: for captures whose spans come from several
 * processes, each exporting its own requests (the MCP server's, received by an OTLP sink), merged
 * into one request by concatenating their `resourceSpans`.
 */
export function writeFixtureRequest(name: string, ...requests: OtlpJsonRequest[]): void {
  const merged = { resourceSpans: requests.flatMap(r => r.resourceSpans) };
  const count = merged.resourceSpans
    .flatMap(r => r.scopeSpans)
    .reduce((n, s) => n + s.spans.length, 0);
  writeFileSync(new URL(`${name}.otlp.json`, OUT), `${JSON.stringify(merged, null, 2)}\n`);
  console.log(`${name}: ${count} spans`);
}

/** An OTLP/HTTP JSON logs request body, as exporters send it. */
export interface OtlpJsonLogsRequest {
  resourceLogs: Array<{ scopeLogs: Array<{ logRecords: unknown[] }> }>;
}

/**
 * Writes what an app sent over OTLP/HTTP as both signals, as `test/fixtures/otlp/<name>.otlp.json`:
 * a JSON array of two requests, every trace request merged into one `ExportTraceServiceRequest`
 * and every logs request into one `ExportLogsServiceRequest`, each as the exporters sent them.
 */
export function writeSignalsFixture(
  name: string,
  traces: readonly OtlpJsonRequest[],
  logs: readonly OtlpJsonLogsRequest[],
): void {
  const spans = { resourceSpans: traces.flatMap(r => r.resourceSpans) };
  const records = { resourceLogs: logs.flatMap(r => r.resourceLogs) };
  const count = (n: number, s: { spans?: unknown[]; logRecords?: unknown[] }): number =>
    n + (s.spans ?? s.logRecords ?? []).length;
  writeFileSync(
    new URL(`${name}.otlp.json`, OUT),
    `${JSON.stringify([spans, records], null, 2)}\n`,
  );
  console.log(
    `${name}: ${spans.resourceSpans.flatMap(r => r.scopeSpans).reduce(count, 0)} spans, ` +
      `${records.resourceLogs.flatMap(r => r.scopeLogs).reduce(count, 0)} log records`,
  );
}

/**
 * Writes the protobuf bodies an app exported as `<name>.otlp.pb` (traces) and `<name>.logs.pb`
 * (logs), each the requests' bytes concatenated: protobuf merges concatenated messages, so each
 * file is one request holding every `resourceSpans` / `resourceLogs` sent.
 */
export function writeProtobufFixture(
  name: string,
  traces: readonly Buffer[],
  logs: readonly Buffer[],
): void {
  writeFileSync(new URL(`${name}.otlp.pb`, OUT), Buffer.concat(traces));
  writeFileSync(new URL(`${name}.logs.pb`, OUT), Buffer.concat(logs));
}

/**
 * The installed version of a package of this workspace (or of the folder `root`, for a capture
 * with its own dependencies), for fixture names.
 */
export function versionOf(pkg: string, root = new URL('./', import.meta.url)): string {
  const file = new URL(`node_modules/${pkg}/package.json`, root);
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
