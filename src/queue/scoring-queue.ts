import pLimit, { type LimitFunction } from 'p-limit';
import { SpanscoreError } from '../errors/spanscore-error.js';
import type { ExportRetryPolicy } from './export-retry.js';
import { retryWithBackoff, type RetryOptions } from './retry-with-backoff.js';
import { settledWithin } from './settled-within.js';

/**
 * Scores one trace; rejects with an `upstream` error to be retried. It may resolve with the
 * trace's delivery (the export of its evaluation spans), which then runs outside the scoring slot.
 */
export type ScoreAttempt = () => Promise<(() => Promise<void>) | void>;

/**
 * Scored traces whose delivery may wait for a retry at once, by default. Not a setting: it bounds
 * memory during an export outage, which `export.retryMaxAgeMs` bounds in time.
 */
export const MAX_WAITING_DELIVERIES = 10_000;

/** At `close`, how long deliveries under way are waited for once scoring finished, by default. */
export const DELIVERY_GRACE_MS = 2000;

/** Options of {@link ScoringQueue}: resolved values (the config schema holds the defaults). */
export interface ScoringQueueOptions {
  /** Traces scored at once (their deliveries wait outside this limit). */
  concurrency: number;
  /** Tries per trace for retryable failures, with exponential backoff. */
  maxAttempts: number;
  /** First retry delay; doubles each time. */
  backoffMs: number;
  /** Export failures are retried by age instead of by count. */
  exportRetry?: ExportRetryPolicy;
  /** Deliveries that may wait for a retry at once; past it a scored trace ends failed. */
  maxWaitingDeliveries: number;
  /** At `close`, how long deliveries under way are waited for. */
  deliveryGraceMs: number;
  /** A trace could not be scored (after retries, or at once), or its delivery ended failed. */
  onFailed?: (traceId: string, error: unknown) => void;
}

/**
 * The memory driver's scoring and delivery: ready traces scored `concurrency` at a time, each
 * attempt after a turn of the event loop when work has run for a while (so a burst of ready
 * traces never keeps the receiver, or `/healthz`, waiting), retried with exponential backoff as
 * `classifyFailure` says; then the trace's delivery (the export of its evaluation spans) outside
 * the scoring slot, retried on its own (by age for export failures), so traces waiting on the
 * tracing backend, or out an outage of it, never hold up the scoring of others. A trace counts as
 * scored once its delivery succeeded; as failed when scoring or delivery gave up.
 */
export class ScoringQueue {
  /** Slots for scoring, in submission order (p-limit's queue: O(1) a trace, however many wait). */
  private readonly slots: LimitFunction;
  private readonly stopping = new AbortController();
  private readonly gate = eventLoopGate();
  /** Scoring phases not finished (queued, scoring, backing off), for close(). */
  private readonly scoringPhases = new Set<Promise<void>>();
  /** Whole runs (scoring and delivery), for close(). */
  private readonly inflight = new Set<Promise<void>>();
  /** Deliveries under way, each as the function that ends it, for close(). */
  private readonly delivering = new Set<(error?: unknown) => void>();
  readonly counters = { scored: 0, failed: 0, retries: 0 };
  waitingDeliveries = 0;

  /** How scoring is retried, and delivery (by age for export failures): the same every trace. */
  private readonly retry: RetryOptions;
  private readonly deliveryRetry: RetryOptions;

  constructor(private readonly options: ScoringQueueOptions) {
    this.slots = pLimit(options.concurrency);
    this.retry = {
      attempts: options.maxAttempts,
      backoffMs: options.backoffMs,
      onRetry: () => void this.counters.retries++,
      signal: this.stopping.signal,
    };
    this.deliveryRetry = {
      ...this.retry,
      ...(options.exportRetry && { exportRetry: options.exportRetry }),
    };
  }

  /** Scoring phases not finished: traces queued, being scored, or waiting to retry. */
  get scoring(): number {
    return this.scoringPhases.size;
  }

  /**
   * Scores a trace: `attempt` in a slot, retried; `scoredOrFailed` once scoring ended either way
   * (before its delivery), for the caller to let go of its spans.
   */
  submit(traceId: string, attempt: ScoreAttempt, scoredOrFailed: () => void): void {
    let phaseDone!: () => void;
    const phase = new Promise<void>(resolve => (phaseDone = resolve));
    this.scoringPhases.add(phase);
    const run = (async () => {
      let deliver: (() => Promise<void>) | void;
      try {
        deliver = await retryWithBackoff(
          () =>
            this.slots(async () => {
              await this.gate();
              return attempt();
            }),
          this.retry,
        );
      } catch (error) {
        this.counters.failed++;
        this.options.onFailed?.(traceId, error);
        return;
      } finally {
        this.scoringPhases.delete(phase);
        phaseDone();
        scoredOrFailed();
      }
      if (!deliver) {
        this.counters.scored++;
        return;
      }
      await this.deliver(traceId, deliver);
    })();
    this.inflight.add(run);
    void run.finally(() => this.inflight.delete(run));
  }

  private async deliver(traceId: string, send: () => Promise<void>): Promise<void> {
    const max = this.options.maxWaitingDeliveries;
    if (this.waitingDeliveries >= max) {
      this.counters.failed++;
      this.options.onFailed?.(
        traceId,
        new SpanscoreError(
          'SS_EXPORT_FAILED',
          `not exported: ${this.waitingDeliveries} scored traces already wait for the tracing backend (at most ${max})`,
        ),
      );
      return;
    }
    this.waitingDeliveries++;
    // At shutdown a delivery still under way after the grace is given up (see close()); what it
    // does after that is not counted twice.
    let ended = false;
    const end = (error?: unknown): void => {
      if (ended) return;
      ended = true;
      if (error === undefined) this.counters.scored++;
      else {
        this.counters.failed++;
        this.options.onFailed?.(traceId, error);
      }
    };
    this.delivering.add(end);
    try {
      await retryWithBackoff(send, this.deliveryRetry);
      end();
    } catch (error) {
      end(error);
    } finally {
      this.waitingDeliveries--;
      this.delivering.delete(end);
    }
  }

  /**
   * Stops retrying (a delivery under way may still finish) and waits: for scoring, up to
   * `deadlineMs`; then for deliveries under way, for what is left of it but at most
   * `deliveryGraceMs` (an export to an endpoint that does not answer may take the exporter's own
   * timeout, which shutdown does not wait out); those still under way then end failed.
   * `unfinished`: traces whose scoring had not finished by the deadline.
   */
  async close(deadlineMs: number): Promise<{ unfinished: number }> {
    this.stopping.abort();
    const started = Date.now();
    await settledWithin(Promise.all([...this.scoringPhases]), deadlineMs);
    const unfinished = this.scoringPhases.size;
    await settledWithin(
      Promise.all([...this.inflight]),
      Math.min(deadlineMs - (Date.now() - started), this.options.deliveryGraceMs),
    );
    for (const end of [...this.delivering])
      end(
        new SpanscoreError(
          'SS_EXPORT_FAILED',
          'not exported: the process stopped while the export was under way',
        ),
      );
    return { unfinished };
  }
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
