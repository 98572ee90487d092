import { appendFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';

/**
 * An OpenTelemetry span exporter that appends each batch to a file as one line of OTLP/JSON (an
 * `ExportTraceServiceRequest`), the JSON Lines the Collector's `file` exporter writes: what
 * `spanscore score`, `inspect` and `suite record` read. For recording an agent's runs in CI or on a
 * laptop with no Collector and no service.
 *
 * Contract: lines are written in the order of `export` calls, each whole; the folder is created
 * on first write; `forceFlush()` and `shutdown()` resolve once every line is on disk. A failed
 * write fails that export (the SDK logs it) and leaves later ones unaffected. After `shutdown()`,
 * exports fail. Limits: one writer per file (two processes appending to one file may interleave
 * lines on some file systems: give each its own file).
 */
export class TraceFileExporter implements SpanExporter {
  readonly #path: string;
  #pending: Promise<void> = Promise.resolve();
  #folder: Promise<unknown> | undefined;
  #stopped = false;

  /** `path`: the JSON Lines file to append to, e.g. `traces/runs.jsonl`. */
  constructor(path: string) {
    this.#path = path;
  }

  export(spans: ReadableSpan[], resultCallback: (result: ExportResult) => void): void {
    if (this.#stopped) {
      resultCallback({
        code: ExportResultCode.FAILED,
        error: new Error(`TraceFileExporter(${this.#path}) is shut down`),
      });
      return;
    }
    const line = Buffer.concat([JsonTraceSerializer.serializeRequest(spans)!, Buffer.from('\n')]);
    this.#folder ??= mkdir(dirname(this.#path), { recursive: true });
    const write = this.#pending.then(() => this.#folder!).then(() => appendFile(this.#path, line));
    this.#pending = write.then(
      () => resultCallback({ code: ExportResultCode.SUCCESS }),
      (error: unknown) =>
        resultCallback({
          code: ExportResultCode.FAILED,
          error: error instanceof Error ? error : new Error(String(error)),
        }),
    );
  }

  forceFlush(): Promise<void> {
    return this.#pending;
  }

  shutdown(): Promise<void> {
    this.#stopped = true;
    return this.#pending;
  }
}
