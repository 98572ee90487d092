import PQueue from 'p-queue';
import { SpanscoreError } from '../errors/spanscore-error.js';
import type { SpanDigest } from '../ingest/span-digest.js';
import type { PartlyRefused, SpanSink } from '../ingest/span-sink.js';
import type { Diagnostic } from '../normalize/inspect-trace.js';
import { groupSpansByTrace } from '../normalize/group-spans-by-trace.js';
import type { ExportRetryPolicy } from './export-retry.js';
import { retryWithBackoff } from './retry-with-backoff.js';
import { settledWithin } from './settled-within.js';
import { refusedPastCap, truncationNotes } from './span-cap.js';
import {
  isRootSpan,
  logsState,
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
   * Scores one complete trace; rejects with an `upstream` error to be retried. It may resolve with the
   * trace's delivery (the export of its evaluation spans), which then runs outside the scoring
   * slot: a trace waiting on the network does not keep another from being scored. A delivery that
   * rejects is retried like a failed scoring.
   */
  process: (
    traceId: string,
    spans: SpanDigest[],
    attempt: { notes: Diagnostic[] },
  ) => Promise<(() => Promise<void>) | void>;
  /** Traces scored at once (their deliveries wait outside this limit). @defaultValue 4 */
  concurrency?: number;
  /**
   * Spans held (buffered or being scored) before `accept` answers saturated (429). A trace's
   * spans are released once it is scored: what waits for the tracing backend is its delivery,
   * bounded by `maxWaitingDeliveries`, so an export outage never blocks ingest.
   * @defaultValue 200000
   */
  maxBufferedSpans?: number;
  /**
   * Spans kept of one trace; past it the trace's further spans are refused (`accept` says how
   * many) and its scoring is told so in `notes` (a `trace_truncated` diagnostic). @defaultValue 10000
   */
  maxSpansPerTrace?: number;
  /**
   * The share of `maxBufferedSpans` one service may hold while another service's spans are held
   * too; past it that service's batches are refused (429) and the others' still accepted.
   * @defaultValue 1 (no per-service limit)
   */
  maxServiceShare?: number;
  /**
   * Scored traces whose delivery (the export of their evaluation spans) may wait for a retry at
   * once; a trace scored past it is not delivered, and ends failed with the reason (its results
   * are stored). @defaultValue 10000
   */
  maxWaitingDeliveries?: number;
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
  /**
   * At `close`, how long deliveries under way are waited for once scoring has finished; those
   * still under way then end failed. @defaultValue 2000
   */
  deliveryGraceMs?: number;
  /** The clock in milliseconds. @defaultValue Date.now */
  now?: () => number;
}

interface Buffered {
  spans: Map<string, SpanDigest>;
  firstSeenMs: number;
  lastSeenMs: number;
  rootEnded: boolean;
  /** A logs-writing model span arrived and no log record yet (see `TraceProgress`). */
  awaitingLogs: boolean;
  /** A log record of the trace arrived. */
  logsSeen: boolean;
  timer: NodeJS.Timeout | undefined;
  queued: boolean;
  /** The service its spans are counted against (the first span's). */
  service: string;
  /** Spans refused past `maxSpansPerTrace`. */
  truncated: number;
}

/** The embedded, in-process queue driver: a {@link SpanSink} that assembles, schedules and scores. */
export interface MemoryTraceAssembler extends SpanSink {
  /**
   * Scores every buffered trace now and waits, up to `deadlineMs`, for all scoring to finish;
   * deliveries waiting for a retry are not retried again (each ends failed, with the reason).
   * `unfinished`: traces whose scoring had not finished by the deadline; a scored trace is never
   * one of them.
   */
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
    /** Scored traces whose evaluation spans wait for delivery (or a retry of it). */
    waitingDeliveries: number;
    /** Spans refused because their trace passed `maxSpansPerTrace`. */
    truncatedSpans: number;
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
  const maxHeld = options.maxBufferedSpans ?? 25_000;
  const maxPerTrace = options.maxSpansPerTrace ?? 10_000;
  const maxPerService = Math.floor(maxHeld * (options.maxServiceShare ?? 1));
  const maxWaitingDeliveries = options.maxWaitingDeliveries ?? 10_000;
  // Aborted by close(): backoffs end, and nothing is tried again.
  const stopping = new AbortController();
  // Spans held per service, for `maxServiceShare`.
  const heldBy = new Map<string, number>();
  const gate = eventLoopGate();
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
  // The scoring phase of each trace taken from the buffer, and the deliveries under way (each as
  // the function that ends it), for close().
  const scoringPhases = new Set<Promise<void>>();
  const delivering = new Set<(error?: unknown) => void>();
  const counters = { scored: 0, lateSpans: 0, failed: 0, retries: 0, truncatedSpans: 0 };
  let held = 0;
  let waitingDeliveries = 0;
  let closed = false;

  function hold(service: string, n: number): void {
    held += n;
    const by = (heldBy.get(service) ?? 0) + n;
    if (by > 0) heldBy.set(service, by);
    else heldBy.delete(service);
  }

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
    const notes = truncationNotes(maxPerTrace, buffer.truncated, spans.length);
    scoring.set(traceId, { firstSeenMs, lastSeenMs, rootEnded, spans });
    const retry = {
      attempts: options.maxAttempts ?? 5,
      backoffMs: options.backoffMs ?? 1000,
      onRetry: () => counters.retries++,
      signal: stopping.signal,
    };
    let scoredNow!: () => void;
    const scoringDone = new Promise<void>(resolve => (scoredNow = resolve));
    scoringPhases.add(scoringDone);
    const done = (async () => {
      let deliver: (() => Promise<void>) | void;
      try {
        // Each attempt scores in a slot of the queue, after a turn of the event loop, so that a
        // burst of ready traces never keeps the receiver (and /healthz) from answering.
        deliver = await retryWithBackoff(
          () =>
            queue.add(
              async () => {
                await gate();
                return options.process(traceId, spans, { notes });
              },
              { throwOnTimeout: true },
            ),
          retry,
        );
      } catch (error) {
        counters.failed++;
        options.onFailed?.(traceId, error);
        return;
      } finally {
        // Scored (or failed): its source spans are released at once, whatever its delivery does.
        scoring.delete(traceId);
        scoringPhases.delete(scoringDone);
        scoredNow();
        hold(buffer.service, -spans.length);
        scored.set(traceId, {
          expiresAtMs: now() + lateWindowMs,
          spans: options.rescoreLateSpans ? buffer.spans : undefined,
        });
        sweep();
      }
      if (!deliver) {
        counters.scored++;
        return;
      }
      // The delivery (the export) runs outside the scoring slot and is retried on its own, by
      // age for export failures, so traces waiting on the tracing backend, or out an outage of
      // it, never hold up scoring of the others, nor the buffer.
      if (waitingDeliveries >= maxWaitingDeliveries) {
        counters.failed++;
        options.onFailed?.(
          traceId,
          new SpanscoreError(
            'SS_EXPORT_FAILED',
            `not exported: ${waitingDeliveries} scored traces already wait for the tracing backend (at most ${maxWaitingDeliveries})`,
          ),
        );
        return;
      }
      waitingDeliveries++;
      const send = deliver;
      // At shutdown a delivery still under way after the grace is given up (see close()); what
      // it does after that is not counted twice.
      let ended = false;
      const end = (error?: unknown): void => {
        if (ended) return;
        ended = true;
        if (error === undefined) counters.scored++;
        else {
          counters.failed++;
          options.onFailed?.(traceId, error);
        }
      };
      delivering.add(end);
      try {
        await retryWithBackoff(() => send(), {
          ...retry,
          ...(options.exportRetry && { exportRetry: options.exportRetry }),
        });
        end();
      } catch (error) {
        end(error);
      } finally {
        waitingDeliveries--;
        delivering.delete(end);
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

  /**
   * The refusal of a batch of `incoming` spans as a whole, whatever it holds: shutting down (503),
   * or the buffer past `maxBufferedSpans` with it (429). `undefined` when it may go on.
   */
  function refusalFor(incoming: number): SpanscoreError | undefined {
    if (closed)
      return new SpanscoreError('SS_INGEST_UNAVAILABLE', 'the receiver is shutting down', {
        retryAfterSeconds: 5,
      });
    if (held + incoming > maxHeld)
      return new SpanscoreError(
        'SS_INGEST_SATURATED',
        `the span buffer holds ${held} of at most ${maxHeld} spans`,
        { retryAfterSeconds: 1 },
      );
    return undefined;
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
    refusesNow() {
      return refusalFor(1);
    },
    accept(spans): Promise<PartlyRefused | void> {
      const refusal = refusalFor(spans.length);
      if (refusal) return Promise.reject(refusal);
      // A service past its share while others' spans are held is refused alone: one agent
      // flooding the buffer does not lock the others out.
      const service = spans[0]?.serviceName ?? '';
      const byService = heldBy.get(service) ?? 0;
      if (byService + spans.length > maxPerService && held - byService > 0) {
        return Promise.reject(
          new SpanscoreError(
            'SS_INGEST_SATURATED',
            `service "${service}" holds ${byService} buffered spans, its share of the buffer (assembly.maxServiceShare of ${maxHeld}) while other services send`,
            { retryAfterSeconds: 1 },
          ),
        );
      }
      // Spans from the protobuf decoder keep their request's body until their attributes are
      // read: decoded here, as scoring would read them anyway, so that a span held for seconds
      // (or, with rescoring, for the late window) holds its own attributes, not the whole body.
      for (const span of spans) void span.attributes;
      const t = now();
      let refused = 0;
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
            awaitingLogs: false,
            logsSeen: true,
            timer: undefined,
            queued: false,
            service: batch[0]!.serviceName,
            truncated: 0,
          };
          hold(buffer.service, buffer.spans.size);
          buffers.set(traceId, buffer);
        }
        if (!buffer) {
          buffer = {
            spans: new Map(),
            firstSeenMs: t,
            lastSeenMs: t,
            rootEnded: false,
            awaitingLogs: false,
            logsSeen: false,
            timer: undefined,
            queued: false,
            service: batch[0]!.serviceName,
            truncated: 0,
          };
          buffers.set(traceId, buffer);
        }
        let added = 0;
        for (const span of batch) {
          if (!buffer.spans.has(span.spanId)) {
            if (buffer.spans.size >= maxPerTrace) {
              buffer.truncated++;
              refused++;
              continue;
            }
            added++;
          }
          buffer.spans.set(span.spanId, span);
        }
        hold(buffer.service, added);
        buffer.lastSeenMs = t;
        if (!buffer.rootEnded) {
          const ids = new Set(buffer.spans.keys());
          buffer.rootEnded = batch.some(s => isRootSpan(s, ids));
        }
        if (!buffer.logsSeen) {
          const logs = logsState(batch);
          if (logs === 'record') buffer.logsSeen = true;
          buffer.awaitingLogs = !buffer.logsSeen && (buffer.awaitingLogs || logs === 'writer');
        }
        schedule(traceId, buffer);
      }
      counters.truncatedSpans += refused;
      return Promise.resolve(refusedPastCap(refused, maxPerTrace));
    },

    async close(deadlineMs = 10_000) {
      closed = true;
      for (const [traceId, buffer] of [...buffers]) enqueue(traceId, buffer);
      // What waits for a retry is not retried again: a delivery under way may still finish.
      stopping.abort();
      const started = Date.now();
      // Scoring first, for the whole deadline; then the deliveries under way, for what is left of
      // it but at most `deliveryGraceMs`: an export to an endpoint that does not answer may take
      // the exporter's own timeout, which shutdown does not wait out.
      await settledWithin(Promise.all([...scoringPhases]), deadlineMs);
      const unfinished = scoring.size;
      await settledWithin(
        Promise.all([...inflight]),
        Math.min(deadlineMs - (Date.now() - started), options.deliveryGraceMs ?? 2000),
      );
      for (const end of [...delivering])
        end(
          new SpanscoreError(
            'SS_EXPORT_FAILED',
            'not exported: the process stopped while the export was under way',
          ),
        );
      return { unfinished };
    },

    stats: () => ({
      bufferedTraces: buffers.size,
      heldSpans: held,
      waitingDeliveries,
      ...counters,
    }),
  };
}

// Taken when this module loads, before a test can fake them: the yield below is about the real
// event loop.
const realNow = performance.now.bind(performance);
const realSetImmediate = setImmediate;

/**
 * A gate that resolves at once, unless work has run for `sliceMs` or more since the event loop
 * last took a turn: then after the turn (timers and I/O first). Ready traces are scored one after
 * another in microtasks; without it a burst of them keeps the receiver, and `/healthz`, waiting
 * for seconds.
 */
function eventLoopGate(sliceMs = 10): () => Promise<void> {
  let sliceStartMs = 0;
  let inSlice = false;
  return () => {
    if (!inSlice) {
      // A fresh stretch of work: it starts now, and ends at the loop's next turn.
      inSlice = true;
      sliceStartMs = realNow();
      realSetImmediate(() => (inSlice = false));
      return Promise.resolve();
    }
    if (realNow() - sliceStartMs < sliceMs) return Promise.resolve();
    return new Promise(resolve => realSetImmediate(resolve));
  };
}
