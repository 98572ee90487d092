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
 * One submitted trace, from its scoring to the end of its delivery: one object a trace. A caller
 * with state of its own a trace extends it ({@link ScoringQueue.submitRun}): its methods then take
 * the place of two closures and their context (about 230 heap bytes a trace, issue 60).
 */
export abstract class ScoringRun {
  /** Its delivery ended (close() may end it first): what it does after that is not counted twice. */
  ended = false;
  constructor(readonly traceId: string) {}
  /** One attempt at scoring the trace (retried as `classifyFailure` says); may return its delivery. */
  abstract attempt(): ReturnType<ScoreAttempt>;
  /** Scoring ended either way (before the delivery): the caller lets go of the trace's spans. */
  abstract scoredOrFailed(): void;
}

/** A run of the given functions ({@link ScoringQueue.submit}). */
class CallbackRun extends ScoringRun {
  constructor(
    traceId: string,
    private readonly attemptOnce: ScoreAttempt,
    private readonly onScoredOrFailed: () => void,
  ) {
    super(traceId);
  }
  attempt(): ReturnType<ScoreAttempt> {
    return this.attemptOnce();
  }
  scoredOrFailed(): void {
    this.onScoredOrFailed();
  }
}

/** What waits for a scoring slot: a trace's first attempt, or a retry's (see `slot`). */
type SlotWaiter = ScoringRun | (() => void);

/** A promise and the function that resolves it. */
interface Drained {
  promise: Promise<void>;
  resolve: () => void;
}

/**
 * The memory driver's scoring and delivery: ready traces scored `concurrency` at a time, each
 * attempt after a turn of the event loop when work has run for a while (so a burst of ready
 * traces never keeps the receiver, or `/healthz`, waiting), retried with exponential backoff as
 * `classifyFailure` says; then the trace's delivery (the export of its evaluation spans) outside
 * the scoring slot, retried on its own (by age for export failures), so traces waiting on the
 * tracing backend, or out an outage of it, never hold up the scoring of others. A trace counts as
 * scored once its delivery succeeded; as failed when scoring or delivery gave up.
 *
 * Where nothing fails a trace costs one object and a few promises: slots pass from trace to trace
 * in submission order (a FIFO of waiters, O(1) a trace however many wait), the retry loop
 * ({@link retryWithBackoff}) is entered only from a first attempt that failed, and close() counts
 * what is unfinished instead of holding a promise a trace.
 */
export class ScoringQueue {
  private readonly stopping = new AbortController();
  private readonly gate = eventLoopGate();
  /** Scoring slots taken (at most `concurrency`). */
  private active = 0;
  /** What waits for a slot, oldest first from `waitingHead`. */
  private readonly waiting: (SlotWaiter | undefined)[] = [];
  private waitingHead = 0;
  /** Scoring phases not finished (queued, scoring, backing off), and whole runs, for close(). */
  private unscored = 0;
  private unfinished = 0;
  private scoringDrained: Drained | undefined;
  private runsDrained: Drained | undefined;
  /** Deliveries under way, for close() to end. */
  private readonly delivering = new Set<ScoringRun>();
  readonly counters = { scored: 0, failed: 0, retries: 0 };
  waitingDeliveries = 0;

  /** How scoring is retried, and delivery (by age for export failures): the same every trace. */
  private readonly retry: RetryOptions;
  private readonly deliveryRetry: RetryOptions;

  constructor(private readonly options: ScoringQueueOptions) {
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
    return this.unscored;
  }

  /**
   * Scores a trace: `attempt` in a slot, retried; `scoredOrFailed` once scoring ended either way
   * (before its delivery), for the caller to let go of its spans.
   */
  submit(traceId: string, attempt: ScoreAttempt, scoredOrFailed: () => void): void {
    this.submitRun(new CallbackRun(traceId, attempt, scoredOrFailed));
  }

  /** {@link ScoringQueue.submit}, for a run whose own methods attempt and let go. */
  submitRun(run: ScoringRun): void {
    this.unscored++;
    this.unfinished++;
    if (this.active < this.options.concurrency) {
      this.active++;
      void this.run(run);
    } else this.waiting.push(run);
  }

  /**
   * A trace, from its first attempt (in the slot taken for it, released before any backoff) to
   * the end of its delivery: one async call, the retry loop entered only from a failure.
   */
  private async run(run: ScoringRun): Promise<void> {
    let deliver: (() => Promise<void>) | void = undefined;
    let outcome: 'scored' | 'retry' | 'failed' = 'scored';
    let error: unknown;
    let startedMs = Date.now();
    try {
      await this.gate();
      deliver = await run.attempt();
    } catch (failed) {
      outcome = 'retry';
      error = failed;
    } finally {
      this.release();
    }
    if (outcome === 'retry') {
      try {
        deliver = await retryWithBackoff(() => this.slot(() => run.attempt()), this.retry, {
          error,
          startedMs,
        });
        outcome = 'scored';
      } catch (failed) {
        outcome = 'failed';
        this.counters.failed++;
        this.options.onFailed?.(run.traceId, failed);
      }
    }
    if (--this.unscored === 0) this.scoringDrained = drain(this.scoringDrained);
    run.scoredOrFailed();
    if (outcome === 'scored') {
      if (!deliver) this.counters.scored++;
      else if (this.admitDelivery(run)) {
        startedMs = Date.now();
        try {
          try {
            await deliver();
          } catch (failed) {
            await retryWithBackoff(deliver, this.deliveryRetry, { error: failed, startedMs });
          }
          this.end(run);
        } catch (failed) {
          this.end(run, failed);
        } finally {
          this.waitingDeliveries--;
          this.delivering.delete(run);
        }
      }
    }
    if (--this.unfinished === 0) this.runsDrained = drain(this.runsDrained);
  }

  /** A retry's attempt in a slot, after those waiting before it. */
  private async slot<T>(attempt: () => Promise<T>): Promise<T> {
    if (this.active < this.options.concurrency) this.active++;
    else await new Promise<void>(resolve => this.waiting.push(resolve));
    try {
      await this.gate();
      return await attempt();
    } finally {
      this.release();
    }
  }

  /** A slot is let go: it passes to the oldest waiter, if any. */
  private release(): void {
    const next = this.nextWaiter();
    if (next === undefined) this.active--;
    else if (next instanceof ScoringRun) void this.run(next);
    else next();
  }

  private nextWaiter(): SlotWaiter | undefined {
    const waiting = this.waiting;
    if (this.waitingHead === waiting.length) return undefined;
    const next = waiting[this.waitingHead];
    waiting[this.waitingHead++] = undefined;
    if (this.waitingHead === waiting.length) {
      waiting.length = 0;
      this.waitingHead = 0;
    } else if (this.waitingHead >= 1024 && this.waitingHead * 2 >= waiting.length) {
      // The taken half let go at once, not shifted a waiter at a time.
      waiting.splice(0, this.waitingHead);
      this.waitingHead = 0;
    }
    return next;
  }

  /**
   * A scored trace's delivery may wait for a retry: counted as waiting; past
   * `maxWaitingDeliveries` it is not, and the trace ends failed with the reason.
   */
  private admitDelivery(run: ScoringRun): boolean {
    const max = this.options.maxWaitingDeliveries;
    if (this.waitingDeliveries >= max) {
      this.counters.failed++;
      this.options.onFailed?.(
        run.traceId,
        new SpanscoreError(
          'SS_EXPORT_FAILED',
          `not exported: ${this.waitingDeliveries} scored traces already wait for the tracing backend (at most ${max})`,
        ),
      );
      return false;
    }
    this.waitingDeliveries++;
    this.delivering.add(run);
    return true;
  }

  /**
   * A delivery ended: delivered (no `error`) or failed. At shutdown a delivery still under way
   * after the grace is given up (see close()); what it does after that is not counted twice.
   */
  private end(run: ScoringRun, error?: unknown): void {
    if (run.ended) return;
    run.ended = true;
    if (error === undefined) this.counters.scored++;
    else {
      this.counters.failed++;
      this.options.onFailed?.(run.traceId, error);
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
    if (this.unscored > 0) {
      this.scoringDrained ??= drained();
      await settledWithin(this.scoringDrained.promise, deadlineMs);
    }
    const unfinished = this.unscored;
    if (this.unfinished > 0) {
      this.runsDrained ??= drained();
      await settledWithin(
        this.runsDrained.promise,
        Math.min(deadlineMs - (Date.now() - started), this.options.deliveryGraceMs),
      );
    }
    for (const run of [...this.delivering])
      this.end(
        run,
        new SpanscoreError(
          'SS_EXPORT_FAILED',
          'not exported: the process stopped while the export was under way',
        ),
      );
    return { unfinished };
  }
}

/** A promise to resolve once something is drained, made when close() waits for it. */
function drained(): Drained {
  let resolve!: () => void;
  const promise = new Promise<void>(r => (resolve = r));
  return { promise, resolve };
}

/** Resolves what waits for the drain, if anything does; nothing waits after it. */
function drain(waiting: Drained | undefined): undefined {
  waiting?.resolve();
  return undefined;
}

// Taken when this module loads, before a test can fake them: the yield below is about the real
// event loop.
const realNow = performance.now.bind(performance);
const realSetImmediate = setImmediate;

/** The gate when it is open: one settled promise, awaited by every attempt that goes on at once. */
const OPEN = Promise.resolve();

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
      return OPEN;
    }
    if (realNow() - sliceStartMs < sliceMs) return OPEN;
    return new Promise(resolve => realSetImmediate(resolve));
  };
}
