import PQueue from 'p-queue';
import { SpanscoreError } from '../errors/spanscore-error.js';
import type { SpanDigest } from '../ingest/span-digest.js';
import type { SpanSink } from '../ingest/span-sink.js';
import { groupSpansByTrace } from '../normalize/group-spans-by-trace.js';
import { isExportFailure, type ExportRetryPolicy } from './export-retry.js';
import { retryWithBackoff } from './retry-with-backoff.js';
import {
  isRootSpan,
  traceReadiness,
  type ReadinessPolicy,
  type TraceProgress,
} from './trace-readiness.js';

/** Options of {@link createMemoryTraceAssembler}. */
export interface MemoryTraceAssemblerOptions {
  /** Export failures are retried by age instead of by count. */
  exportRetry?: ExportRetryPolicy;
  policy: ReadinessPolicy;
  /**
   * Scores one complete trace; rejects with an `upstream` error to be retried. `exportRetry`:
   * an earlier try failed to export (see `ScoreOptions.exportRetry`). It may resolve with the
   * trace's delivery (the export of its evaluation spans), which then runs outside the scoring
   * slot: a trace waiting on the network does not keep another from being scored. A delivery that
   * rejects is retried like a failed scoring.
   */
  process: (
    traceId: string,
    spans: SpanDigest[],
    attempt: { exportRetry: boolean },
  ) => Promise<(() => Promise<void>) | void>;
  /**
   * Traces scored at once (their deliveries are not counted: spans held until delivered count
   * against `maxBufferedSpans`). @defaultValue 4
   */
  concurrency?: number;
  /** Spans held (buffered, being scored or delivered) before `accept` answers saturated (429). @defaultValue 200000 */
  maxBufferedSpans?: number;
  /** Tries per trace for retryable failures (see `classifyFailure`), with exponential backoff. @defaultValue 5 */
  maxAttempts?: number;
  /** First retry delay; doubles each time. @defaultValue 1000 */
  backoffMs?: number;
  /** Score a trace again when spans arrive after it was scored; its evaluation spans are replaced. @defaultValue false */
  rescoreLateSpans?: boolean;
  /** How long a scored trace is remembered, to recognize late spans. @defaultValue policy.maxWaitMs */
  lateWindowMs?: number;
  /** Called for spans that arrive after their trace was scored. */
  onLateSpans?: (traceId: string, count: number) => void;
  /** Called when a trace could not be scored (after retries, or at once for non-retryable errors). */
  onFailed?: (traceId: string, error: unknown) => void;
  /** The clock in milliseconds. @defaultValue Date.now */
  now?: () => number;
}

interface Buffered {
  spans: Map<string, SpanDigest>;
  firstSeenMs: number;
  lastSeenMs: number;
  rootEnded: boolean;
  timer: NodeJS.Timeout | undefined;
  queued: boolean;
}

/** The embedded, in-process queue driver: a {@link SpanSink} that assembles, schedules and scores. */
export interface MemoryTraceAssembler extends SpanSink {
  /** Scores every buffered trace now and waits, up to `deadlineMs`, for all scoring to finish. */
  close(deadlineMs?: number): Promise<{ unfinished: number }>;
  /**
   * A buffered trace's progress, or a trace being scored (`scoring`, retries included);
   * `undefined` when it holds neither.
   */
  pending(traceId: string): (TraceProgress & { scoring?: boolean }) | undefined;
  /** The spans of a trace that is buffered or being scored; `undefined` otherwise. */
  pendingSpans(traceId: string): SpanDigest[] | undefined;
  /** Counters for metrics and tests. */
  stats(): {
    bufferedTraces: number;
    heldSpans: number;
    scored: number;
    lateSpans: number;
    failed: number;
    retries: number;
  };
}

/**
 * The `memory` driver: the same assembly as the BullMQ driver, in one process, bounded, with
 * nothing surviving a restart. Spans are buffered per trace; a timer per trace fires when
 * {@link traceReadiness} says the trace is complete (root ended and quiet for `settleMs`, or
 * `maxWaitMs` after its first span), and the trace is scored once, on a queue with `concurrency`
 * workers and retries with exponential backoff for retryable failures. Spans that arrive after
 * their trace was scored are counted as late, and rescore it when `rescoreLateSpans` is on.
 * `accept` refuses a batch whole (`SS_INGEST_SATURATED`) rather than exceed `maxBufferedSpans`.
 */
export function createMemoryTraceAssembler(
  options: MemoryTraceAssemblerOptions,
): MemoryTraceAssembler {
  const now = options.now ?? Date.now;
  const maxHeld = options.maxBufferedSpans ?? 200_000;
  const lateWindowMs = options.lateWindowMs ?? options.policy.maxWaitMs;
  const queue = new PQueue({ concurrency: options.concurrency ?? 4 });
  const buffers = new Map<string, Buffered>();
  // Scored traces: when they expire from memory, and their spans when rescoring is on.
  const scored = new Map<
    string,
    { expiresAtMs: number; spans: Map<string, SpanDigest> | undefined }
  >();
  // Traces taken from the buffer and not finished yet (queued, scoring, retrying), and the
  // promises of their attempts, for close().
  const scoring = new Map<string, TraceProgress & { spans: SpanDigest[] }>();
  const inflight = new Set<Promise<void>>();
  const counters = { scored: 0, lateSpans: 0, failed: 0, retries: 0 };
  let held = 0;
  let closed = false;

  function schedule(traceId: string, buffer: Buffered): void {
    clearTimeout(buffer.timer);
    const readiness = traceReadiness(buffer, now(), options.policy);
    if (readiness.ready) return enqueue(traceId, buffer);
    buffer.timer = setTimeout(
      () => schedule(traceId, buffer),
      Math.max(0, readiness.recheckAtMs - now()),
    );
    buffer.timer.unref();
  }

  function enqueue(traceId: string, buffer: Buffered): void {
    clearTimeout(buffer.timer);
    if (buffer.queued) return;
    buffer.queued = true;
    buffers.delete(traceId);
    const { firstSeenMs, lastSeenMs, rootEnded } = buffer;
    const spans = [...buffer.spans.values()];
    scoring.set(traceId, { firstSeenMs, lastSeenMs, rootEnded, spans });
    const done = (async () => {
      let exportRetry = false;
      try {
        // Each attempt scores in a slot of the queue; its delivery (the export) and the backoff
        // between attempts happen outside it, so traces waiting on the tracing backend, or out
        // an outage of it, never hold up scoring of the others.
        const attempt = async (): Promise<void> => {
          try {
            const deliver = await queue.add(
              () => options.process(traceId, spans, { exportRetry }),
              { throwOnTimeout: true },
            );
            if (deliver) await deliver();
          } catch (error) {
            // From now on only the export is retried: the results were recorded.
            if (isExportFailure(error)) exportRetry = true;
            throw error;
          }
        };
        await retryWithBackoff(attempt, {
          attempts: options.maxAttempts ?? 5,
          backoffMs: options.backoffMs ?? 1000,
          onRetry: () => counters.retries++,
          ...(options.exportRetry && { exportRetry: options.exportRetry }),
        });
        counters.scored++;
      } catch (error) {
        counters.failed++;
        options.onFailed?.(traceId, error);
      } finally {
        scoring.delete(traceId);
        held -= spans.length;
        scored.set(traceId, {
          expiresAtMs: now() + lateWindowMs,
          spans: options.rescoreLateSpans ? buffer.spans : undefined,
        });
        sweep();
      }
    })();
    inflight.add(done);
    void done.finally(() => inflight.delete(done));
  }

  function sweep(): void {
    const t = now();
    for (const [traceId, entry] of scored) {
      if (entry.expiresAtMs > t) break; // insertion order is expiry order
      scored.delete(traceId);
    }
  }

  return {
    pending(traceId) {
      const b = buffers.get(traceId);
      if (b)
        return { firstSeenMs: b.firstSeenMs, lastSeenMs: b.lastSeenMs, rootEnded: b.rootEnded };
      const s = scoring.get(traceId);
      return (
        s && {
          firstSeenMs: s.firstSeenMs,
          lastSeenMs: s.lastSeenMs,
          rootEnded: s.rootEnded,
          scoring: true,
        }
      );
    },
    pendingSpans(traceId) {
      const b = buffers.get(traceId);
      return b ? [...b.spans.values()] : scoring.get(traceId)?.spans;
    },
    accept(spans) {
      if (closed) {
        return Promise.reject(
          new SpanscoreError('SS_INGEST_UNAVAILABLE', 'the receiver is shutting down', {
            retryAfterSeconds: 5,
          }),
        );
      }
      if (held + spans.length > maxHeld) {
        return Promise.reject(
          new SpanscoreError(
            'SS_INGEST_SATURATED',
            `the span buffer holds ${held} of at most ${maxHeld} spans`,
            { retryAfterSeconds: 1 },
          ),
        );
      }
      // Spans from the protobuf decoder keep their request's body until their attributes are
      // read: decoded here, as scoring would read them anyway, so that a span held for seconds
      // (or, with rescoring, for the late window) holds its own attributes, not the whole body.
      for (const span of spans) void span.attributes;
      const t = now();
      for (const [traceId, batch] of groupSpansByTrace(spans)) {
        let buffer = buffers.get(traceId);
        const done = scored.get(traceId);
        if (!buffer && done && done.expiresAtMs > t) {
          counters.lateSpans += batch.length;
          options.onLateSpans?.(traceId, batch.length);
          if (!done.spans) continue;
          // Rescore: start again from the spans already scored, plus the late ones.
          scored.delete(traceId);
          buffer = {
            spans: new Map(done.spans),
            firstSeenMs: t,
            lastSeenMs: t,
            rootEnded: true,
            timer: undefined,
            queued: false,
          };
          held += buffer.spans.size;
          buffers.set(traceId, buffer);
        }
        if (!buffer) {
          buffer = {
            spans: new Map(),
            firstSeenMs: t,
            lastSeenMs: t,
            rootEnded: false,
            timer: undefined,
            queued: false,
          };
          buffers.set(traceId, buffer);
        }
        for (const span of batch) {
          if (!buffer.spans.has(span.spanId)) held++;
          buffer.spans.set(span.spanId, span);
        }
        buffer.lastSeenMs = t;
        if (!buffer.rootEnded) {
          const ids = new Set(buffer.spans.keys());
          buffer.rootEnded = batch.some(s => isRootSpan(s, ids));
        }
        schedule(traceId, buffer);
      }
      return Promise.resolve();
    },

    async close(deadlineMs = 10_000) {
      closed = true;
      for (const [traceId, buffer] of [...buffers]) enqueue(traceId, buffer);
      let timer: NodeJS.Timeout | undefined;
      const finished = await Promise.race([
        Promise.all([...inflight]).then(() => true),
        new Promise<boolean>(resolve => (timer = setTimeout(() => resolve(false), deadlineMs))),
      ]);
      clearTimeout(timer);
      return { unfinished: finished ? 0 : scoring.size };
    },

    stats: () => ({ bufferedTraces: buffers.size, heldSpans: held, ...counters }),
  };
}
