import { SpanscoreError } from '../errors/spanscore-error.js';
import type { EvaluationExporter } from './otlp-evaluation-exporter.js';

/** Options of {@link withExportBreaker}. */
export interface ExportBreakerOptions {
  /** While the backend is failing, one probe is sent at most this long after the last. @defaultValue 1000 */
  probeIntervalMs?: number;
  /** How long the call whose spans are the probe waits for its answer. @defaultValue 1000 */
  probeWaitMs?: number;
  /** The clock. @defaultValue Date.now */
  now?: () => number;
}

/**
 * A circuit breaker in front of the evaluation-span exporter. While the tracing backend works,
 * every export goes through and its caller waits for it. Once one fails, the breaker opens: every
 * export fails at once with `SS_EXPORT_FAILED` (the last failure, and that it was not tried), so
 * the queue retries it with its own backoff instead of each one waiting out the exporter's
 * timeout and retries (up to 10 s) in a worker slot. Meanwhile, at most every `probeIntervalMs`
 * and one at a time, the spans of one call are sent as a probe; that call waits up to
 * `probeWaitMs` for the answer, and is refused like the others when none comes by then (the
 * probe goes on; if it later succeeds the call is retried all the same: span ids are derived, so
 * the backend gets the same spans again, not new ones). The first probe that succeeds closes the
 * breaker. During an outage a process so sends about one request a second to the backend, and
 * no worker slot waits on it for more than `probeWaitMs`.
 */
export function withExportBreaker(
  inner: EvaluationExporter,
  options: ExportBreakerOptions = {},
): EvaluationExporter {
  const probeIntervalMs = options.probeIntervalMs ?? 1000;
  const probeWaitMs = options.probeWaitMs ?? 1000;
  const now = options.now ?? Date.now;
  let failure: { error: Error; sinceMs: number } | undefined;
  let probe: Promise<unknown> | undefined;
  let lastTryMs = 0;

  const failed = (error: unknown): void => {
    failure = {
      error: error instanceof Error ? error : new Error(String(error)),
      sinceMs: failure?.sinceMs ?? now(),
    };
  };

  // A failure while the backend worked opens the breaker. Made once: while the backend works, an
  // export is the inner one's promise with this after it, no async call a trace.
  const recorded = (error: unknown): unknown => {
    failed(error);
    lastTryMs = now();
    return error;
  };
  const onFailure = (error: unknown): never => {
    throw recorded(error);
  };
  // eslint-disable-next-line @typescript-eslint/require-await -- an async function, to reject
  const rejected = async (error: unknown): Promise<never> => onFailure(error);

  async function exportWhileFailing(
    spans: Parameters<EvaluationExporter['export']>[0],
    { error, sinceMs }: { error: Error; sinceMs: number },
  ): Promise<void> {
    if (!probe && now() - lastTryMs >= probeIntervalMs) {
      const answer = inner.export(spans).then(
        () => {
          failure = undefined;
          return 'sent' as const;
        },
        (e: unknown) => {
          failed(e);
          return e;
        },
      );
      probe = answer.finally(() => {
        probe = undefined;
        lastTryMs = now();
      });
      let timer: NodeJS.Timeout | undefined;
      const outcome = await Promise.race([
        answer,
        new Promise<'waiting'>(resolve => {
          timer = setTimeout(() => resolve('waiting'), probeWaitMs);
        }),
      ]);
      clearTimeout(timer);
      if (outcome === 'sent') return;
      if (outcome !== 'waiting') throw outcome;
    }
    throw new SpanscoreError(
      'SS_EXPORT_FAILED',
      `${error.message} (the tracing backend has failed for ${Math.round((now() - sinceMs) / 1000)} s: not sent now, retried with backoff)`,
      { cause: error },
    );
  }

  return {
    export(spans) {
      if (failure) return exportWhileFailing(spans, failure);
      try {
        return inner.export(spans).then(undefined, onFailure);
      } catch (error) {
        // An export that threw rather than rejected: the same as a rejection.
        return rejected(error);
      }
    },
    async shutdown() {
      await probe;
      await inner.shutdown();
    },
  };
}
