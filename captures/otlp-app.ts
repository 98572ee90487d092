/**
 * An app set up as the OpenTelemetry GenAI instrumentations' READMEs say: a tracer provider and a
 * logger provider, each batching into an OTLP/HTTP exporter (JSON) pointed at one endpoint, as
 * `OTEL_EXPORTER_OTLP_ENDPOINT` would. The instrumentations write spans to the one and the
 * messages of each model call, as GenAI events, to the other.
 */
import { context, trace } from '@opentelemetry/api';
import { logs } from '@opentelemetry/api-logs';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { OTLPLogExporter } from '@opentelemetry/exporter-logs-otlp-http';
import { OTLPLogExporter as OTLPLogProtoExporter } from '@opentelemetry/exporter-logs-otlp-proto';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OTLPTraceProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchLogRecordProcessor, LoggerProvider } from '@opentelemetry/sdk-logs';
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';

export interface OtlpApp {
  tracerProvider: NodeTracerProvider;
  loggerProvider: LoggerProvider;
  /** Exports everything batched so far, both signals. */
  flush(): Promise<void>;
}

/**
 * Registers both providers globally, exporting to `endpoint` (`/v1/traces`, `/v1/logs`) as JSON
 * and, with `protobuf`, the same spans and records also as protobuf, to `<endpoint>/protobuf/v1/…`.
 */
export function startOtlpApp(serviceName: string, endpoint: string, protobuf = false): OtlpApp {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  const resource = resourceFromAttributes({ 'service.name': serviceName });
  const tracerProvider = new NodeTracerProvider({
    resource,
    spanProcessors: [
      new BatchSpanProcessor(new OTLPTraceExporter({ url: `${endpoint}/v1/traces` })),
      ...(protobuf
        ? [
            new BatchSpanProcessor(
              new OTLPTraceProtoExporter({ url: `${endpoint}/protobuf/v1/traces` }),
            ),
          ]
        : []),
    ],
  });
  trace.setGlobalTracerProvider(tracerProvider);
  const loggerProvider = new LoggerProvider({
    resource,
    processors: [
      new BatchLogRecordProcessor({
        exporter: new OTLPLogExporter({ url: `${endpoint}/v1/logs` }),
      }),
      ...(protobuf
        ? [
            new BatchLogRecordProcessor({
              exporter: new OTLPLogProtoExporter({ url: `${endpoint}/protobuf/v1/logs` }),
            }),
          ]
        : []),
    ],
  });
  logs.setGlobalLoggerProvider(loggerProvider);
  return {
    tracerProvider,
    loggerProvider,
    flush: async () => {
      await tracerProvider.forceFlush();
      await loggerProvider.forceFlush();
    },
  };
}
