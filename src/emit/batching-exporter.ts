import type { EvaluationExporter } from './otlp-evaluation-exporter.js';
import type { EvaluationSpan } from './score-to-span.js';
import { EVALUATION_REQUEST_BYTES } from './evaluation-span-bytes.js';

/** Options of {@link withBatching}. */
export interface BatchingOptions {
  /** Spans that trigger a flush at once (`export.batchMaxSpans`). */
  maxSpans: number;
  /** How long the first span of a batch may wait for others (`export.batchDelayMs`). */
  maxDelayMs: number;
  /**
   * Bytes of one request at most, as `spanBytes` counts them plus `EVALUATION_REQUEST_BYTES`
   * (`export.maxBatchBytes`).
   */
  maxBytes: number;
  /**
   * At most how many bytes a span adds to a request: `evaluationSpanBytes` for the inner
   * exporter's protocol. Called once a span, as it joins a batch.
   */
  spanBytes: (span: EvaluationSpan) => number;
}

/**
 * An exporter that gathers the spans of concurrent `export` calls (one per scored trace) into one
 * OTLP request of up to `maxSpans`, sent at most `maxDelayMs` after its first span. Each call still
 * resolves or rejects with its own batch's result, so a failed export fails, and retries, exactly
 * the jobs whose spans were in it (derived span ids make the retry idempotent). `shutdown` sends
 * what is pending first. One HTTP request per trace was the largest cost of the worker's
 * write-back under load (see docs/performance.md).
 *
 * A request also holds at most `maxBytes` as `spanBytes` counts them (collectors refuse larger
 * bodies: 4 MiB by default): a batch is sent before a span would take it past them, so a call's
 * spans may go in more than one request (the call then resolves when all did, and rejects when
 * any failed). A span that alone counts past `maxBytes` goes in a request of its own, whole:
 * every evaluation span is bounded already (`RESULT_BOUNDS`: about 55 KB at most in protobuf,
 * under the least `export.maxBatchBytes`; JSON's count of a span of escapes can pass it), and
 * cutting it would lose the result it carries.
 */
export function withBatching(
  inner: EvaluationExporter,
  options: BatchingOptions,
): EvaluationExporter {
  const { maxSpans, maxDelayMs, maxBytes, spanBytes } = options;
  let pending: EvaluationSpan[] = [];
  let pendingBytes = EVALUATION_REQUEST_BYTES;
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
    pendingBytes = EVALUATION_REQUEST_BYTES;
    batch = undefined;
    const sent = inner.export(spans).then(resolve, reject);
    inFlight.add(sent);
    void sent.finally(() => inFlight.delete(sent));
  }

  return {
    export(spans: readonly EvaluationSpan[]): Promise<void> {
      if (spans.length === 0) return Promise.resolve();
      let current = (batch ??= newBatch());
      // The batches sent before this call's last span: rarely any, so no array most calls.
      let sent: Promise<void>[] | undefined;
      // Whether this call's spans are in `current`: a batch of other calls' spans only, sent
      // because this call's first span did not fit, is not this call's to wait for (nor to fail).
      let joined = false;
      for (let i = 0; i < spans.length; i++) {
        const span = spans[i]!;
        const bytes = spanBytes(span);
        if (pending.length > 0 && pendingBytes + bytes > maxBytes) {
          flush();
          if (joined) (sent ??= []).push(current.promise);
          current = batch = newBatch();
        }
        pending.push(span);
        pendingBytes += bytes;
        joined = true;
      }
      if (pending.length >= maxSpans) flush();
      else timer ??= setTimeout(flush, maxDelayMs);
      if (!sent) return current.promise;
      sent.push(current.promise);
      return Promise.all(sent).then(nothing);
    },
    async shutdown() {
      flush();
      await Promise.all(inFlight);
      await inner.shutdown();
    },
  };
}

function nothing(): void {}

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
