import { ExportResultCode } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';

/**
 * Sends spans with the real OTLP/protobuf exporter (which retries 429/503 itself, honouring
 * Retry-After, within `timeoutMillis`); rejects when the export finally fails.
 */
export async function sendSpans(
  url: string,
  spans: ReadableSpan[],
  timeoutMillis = 10_000,
): Promise<void> {
  const exporter = new OTLPTraceExporter({ url, timeoutMillis });
  try {
    await new Promise<void>((resolve, reject) =>
      exporter.export(spans, r =>
        r.code === ExportResultCode.SUCCESS
          ? resolve()
          : reject(r.error ?? new Error('export failed')),
      ),
    );
  } finally {
    await exporter.shutdown();
  }
}
