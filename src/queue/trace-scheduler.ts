import { traceReadiness, type ReadinessPolicy, type TraceProgress } from './trace-readiness.js';

/**
 * When each buffered trace is ready: one timer per trace, set to the moment {@link traceReadiness}
 * names and moved when a span arrives ({@link TraceScheduler.touch}); `onReady` is called once the
 * trace is complete (root ended and quiet for `settleMs`, or `maxWaitMs` after its first span).
 * The memory driver's counterpart of a BullMQ job delayed until its trace is due.
 */
export class TraceScheduler {
  private readonly timers = new Map<string, NodeJS.Timeout>();

  constructor(
    private readonly policy: ReadinessPolicy,
    private readonly onReady: (traceId: string) => void,
    private readonly now: () => number = Date.now,
  ) {}

  /** Looks at the trace now: ready, `onReady`; else a timer for when it may be. */
  touch(traceId: string, progress: TraceProgress): void {
    clearTimeout(this.timers.get(traceId));
    const readiness = traceReadiness(progress, this.now(), this.policy);
    if (readiness.ready) {
      this.timers.delete(traceId);
      this.onReady(traceId);
      return;
    }
    const timer = setTimeout(
      () => this.touch(traceId, progress),
      Math.max(0, readiness.recheckAtMs - this.now()),
    );
    timer.unref();
    this.timers.set(traceId, timer);
  }

  /** Forgets the trace's timer (it was taken to be scored). */
  cancel(traceId: string): void {
    clearTimeout(this.timers.get(traceId));
    this.timers.delete(traceId);
  }
}
