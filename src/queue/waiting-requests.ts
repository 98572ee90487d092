/** Limits of {@link WaitingRequests}: `assembly.admissionWaitMs` and what may wait at once. */
export interface WaitingLimits {
  /** How long a request waits for room before it is refused; 0: never waits. */
  maxWaitMs: number;
  /**
   * Spans of waiting requests held at once (decoded, outside the buffer's count). A larger
   * request waits only alone, so that a big batch is not refused for good while small ones pass.
   */
  maxSpans: number;
  /** Bytes of their attribute records held at once; a hard bound, alone or not. */
  maxBytes: number;
  /**
   * Called after a wait ran out or its sender left: the room it held back may let the next
   * request in.
   */
  onTimeout?: () => void;
}

/** One request at the door: its span count, and how its wait ends. */
interface Waiter {
  readonly spans: number;
  readonly bytes: number;
  readonly admitted: () => void;
  readonly refused: (error: Error) => void;
  timer: ReturnType<typeof setTimeout> | undefined;
  /** Aborted when its sender leaves (see {@link WaitingRequests.wait}), and what listens. */
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
  /** Let in, refused, timed out or left: stays in the queue until it is swept. */
  done: boolean;
}

/**
 * Requests waiting for room in a full span buffer, in arrival order. A sender whose request finds
 * the buffer full is held, not refused, for up to `maxWaitMs`: as traces are scored and let go,
 * the buffer admits the waiting requests first come, first in. An OTLP exporter told 429 waits
 * out a whole `Retry-After` (a second at least: the header counts seconds), so under steady
 * overload a buffer that refused at once stood idle for much of each second, every sender
 * waiting at the same time; held at the door, senders slow to the rate the service scores at.
 * (The OpenTelemetry Collector's sending queue offers the same choice, `block_on_overflow`.)
 *
 * Bounded both ways: a request waits at most `maxWaitMs` (then it is refused as it would have
 * been, and sent again by its exporter), and at most `maxSpans` spans (a larger request alone) and
 * `maxBytes` bytes wait at once; past that a request is refused at once. A sender that gives up
 * (its exporter's timeout, 10 s in the OpenTelemetry SDKs, closes the connection) is let go where
 * it waits (`wait`'s signal), so what it sends again is not taken twice; `maxWaitMs` stays well
 * under those timeouts all the same, so that exporters are answered.
 */
export class WaitingRequests {
  private readonly queue: Waiter[] = [];
  /** Index of the first waiter that may still wait (those before it have ended). */
  private head = 0;
  private spans = 0;
  private bytes = 0;
  private count = 0;
  /** Shutting down: nothing waits any more. */
  private stopped = false;

  constructor(private readonly limits: WaitingLimits) {}

  /** Requests waiting now. */
  get size(): number {
    return this.count;
  }

  /** Spans of the requests waiting now. */
  get waitingSpans(): number {
    return this.spans;
  }

  /**
   * Whether a request of `spans` spans and `bytes` bytes of attribute records may wait now (else
   * it is refused at once): within both bounds, or alone within the bytes.
   */
  canWait(spans: number, bytes: number): boolean {
    const { maxWaitMs, maxSpans, maxBytes } = this.limits;
    return (
      maxWaitMs > 0 &&
      !this.stopped &&
      this.bytes + bytes <= maxBytes &&
      (this.count === 0 || this.spans + spans <= maxSpans)
    );
  }

  /**
   * Waits for room for `spans` spans: resolves once {@link admit} lets the request in (its spans
   * then count in what `admit` returned), or rejects with `timedOut()` after `maxWaitMs`, or with
   * {@link refuseAll}'s error, or with `signal`'s reason once it aborts (the sender closed its
   * connection: nobody would be told the request was taken, and its exporter sends it again).
   * Check {@link canWait} first.
   */
  wait(spans: number, bytes: number, timedOut: () => Error, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        spans,
        bytes,
        admitted: resolve,
        refused: reject,
        timer: undefined,
        signal,
        onAbort: undefined,
        done: false,
      };
      waiter.timer = setTimeout(() => {
        waiter.timer = undefined;
        this.giveUp(waiter, timedOut());
      }, this.limits.maxWaitMs);
      waiter.timer.unref?.();
      if (signal) {
        waiter.onAbort = () => this.giveUp(waiter, signal.reason as Error);
        signal.addEventListener('abort', waiter.onAbort, { once: true });
      }
      this.queue.push(waiter);
      this.spans += spans;
      this.bytes += bytes;
      this.count++;
    });
  }

  /**
   * Lets waiting requests in, in arrival order, while the first fits in `room` spans; a request
   * that does not fit holds back those behind it (no small request overtakes a large one for
   * good). Returns the spans let in: the caller counts them as held before the requests resume.
   */
  admit(room: number): number {
    let taken = 0;
    for (; this.head < this.queue.length; this.head++) {
      const waiter = this.queue[this.head]!;
      if (waiter.done) continue;
      if (waiter.spans > room - taken) break;
      taken += waiter.spans;
      this.end(waiter);
      waiter.admitted();
    }
    this.sweep();
    return taken;
  }

  /**
   * Refuses every waiting request with `error`, and lets none wait from now on (the service is
   * shutting down: its HTTP server waits for the requests under way before it closes).
   */
  refuseAll(error: Error): void {
    this.stopped = true;
    for (; this.head < this.queue.length; this.head++) {
      const waiter = this.queue[this.head]!;
      if (waiter.done) continue;
      this.end(waiter);
      waiter.refused(error);
    }
    this.sweep();
  }

  /** A wait that ran out or whose sender left: refused, and its room offered to the next. */
  private giveUp(waiter: Waiter, error: Error): void {
    if (waiter.done) return;
    this.end(waiter);
    this.sweep();
    waiter.refused(error);
    this.limits.onTimeout?.();
  }

  /** A waiter's wait is over: its spans no longer wait, its timer and listener are cleared. */
  private end(waiter: Waiter): void {
    waiter.done = true;
    this.spans -= waiter.spans;
    this.bytes -= waiter.bytes;
    this.count--;
    if (waiter.timer !== undefined) clearTimeout(waiter.timer);
    waiter.timer = undefined;
    if (waiter.onAbort) waiter.signal!.removeEventListener('abort', waiter.onAbort);
    waiter.onAbort = undefined;
    waiter.signal = undefined;
  }

  /**
   * Moves past the ended waiters at the front, and drops them from the array once they are half
   * of it (amortized constant work a waiter). Timeouts and admissions end waits in arrival order
   * (all wait `maxWaitMs`, and {@link admit} takes the first); a sender that leaves ends one
   * anywhere in the queue, so once the entries are more than twice those waiting (and 32), the
   * ended ones are dropped wherever they are (again amortized: at least half of them go).
   */
  private sweep(): void {
    while (this.head < this.queue.length && this.queue[this.head]!.done) this.head++;
    if (this.head === this.queue.length) {
      this.queue.length = 0;
      this.head = 0;
    } else if (this.queue.length - this.head > 2 * this.count + 32) {
      let kept = 0;
      for (let i = this.head; i < this.queue.length; i++)
        if (!this.queue[i]!.done) this.queue[kept++] = this.queue[i]!;
      this.queue.length = kept;
      this.head = 0;
    } else if (this.head > 32 && this.head * 2 > this.queue.length) {
      this.queue.splice(0, this.head);
      this.head = 0;
    }
  }

  /** Entries in the queue, ended ones not yet dropped included (for tests of its bounds). */
  get queuedEntries(): number {
    return this.queue.length;
  }
}
