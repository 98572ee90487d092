import type { EvaluationExporter } from './otlp-evaluation-exporter.js';
import type { EvaluationSpan } from './score-to-span.js';

/** Options of {@link withBatching}. */
export interface BatchingOptions {
  /** Spans that trigger a flush at once (`export.batchMaxSpans`). */
  maxSpans: number;
  /** How long the first span of a batch may wait for others (`export.batchDelayMs`). */
  maxDelayMs: number;
}

/**
 * An exporter that gathers the spans of concurrent `export` calls (one per scored trace) into one
 * OTLP request of up to `maxSpans`, sent at most `maxDelayMs` after its first span. Each call still
 * resolves or rejects with its own batch's result, so a failed export fails, and retries, exactly
 * the jobs whose spans were in it (derived span ids make the retry idempotent). `shutdown` sends
 * what is pending first. One HTTP request per trace was the largest cost of the worker's
 * write-back under load (see docs/performance.md).
 */
export function withBatching(
  inner: EvaluationExporter,
  options: BatchingOptions,
): EvaluationExporter {
  const { maxSpans, maxDelayMs } = options;
  let pending: EvaluationSpan[] = [];
  // The calls of one batch share its outcome: one promise a batch, none a call.
  let batch: Batch | undefined;
  let timer: NodeJS.Timeout | undefined;
  const inFlight = new Set<Promise<void>>();

  function flush(): void {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (pending.length === 0 || !batch) return;
    const spans = pending;
    const { resolve, reject } = batch;
    pending = [];
    batch = undefined;
    const sent = inner.export(spans).then(resolve, reject);
    inFlight.add(sent);
    void sent.finally(() => inFlight.delete(sent));
  }

  return {
    export(spans: readonly EvaluationSpan[]): Promise<void> {
      if (spans.length === 0) return Promise.resolve();
      const current = (batch ??= newBatch());
      for (let i = 0; i < spans.length; i++) pending.push(spans[i]!);
      if (pending.length >= maxSpans) flush();
      else timer ??= setTimeout(flush, maxDelayMs);
      return current.promise;
    },
    async shutdown() {
      flush();
      await Promise.all(inFlight);
      await inner.shutdown();
    },
  };
}

/** The outcome the calls whose spans are in one request share. */
interface Batch {
  promise: Promise<void>;
  resolve: () => void;
  reject: (error: unknown) => void;
}

function newBatch(): Batch {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}
