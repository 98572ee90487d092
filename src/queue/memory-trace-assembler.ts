import { SpanscoreError } from '../errors/spanscore-error.js';
import type { SpanDigest } from '../ingest/span-digest.js';
import type { PartlyRefused, SpanSink } from '../ingest/span-sink.js';
import { groupSpansByTrace } from '../normalize/group-spans-by-trace.js';
import type { MemoryTraceAssemblerOptions } from './memory-trace-assembler-options.js';
import { DELIVERY_GRACE_MS, MAX_WAITING_DELIVERIES, ScoringQueue } from './scoring-queue.js';
import { refusedPastCap, truncationNotes } from './span-cap.js';
import {
  ownRecords,
  TraceByteBuffer,
  unreadRecordBytes,
  type HeldTrace,
} from './trace-byte-buffer.js';
import type { TraceProgress } from './trace-readiness.js';
import { TraceScheduler } from './trace-scheduler.js';
import { WaitingRequests } from './waiting-requests.js';
import type { MemoryTraceAssemblerStats } from './memory-trace-assembler-stats.js';
import { MemoryScoring } from './memory-scoring.js';

/**
 * Traces of one request added between two turns of the event loop: a request of more is added
 * in slices (about 5 ms each here), so a burst of tiny traces never keeps `/healthz` waiting for
 * a whole request. An exporter's batch (a few dozen traces) is added at once.
 */
const ACCEPT_SLICE = 1000;

/**
 * Bytes of attribute records the requests waiting for room may hold at once (a waiting request's
 * records are copied out of its body, which is let go): with `maxBufferedSpans`' quarter, what
 * the door holds beside the buffer.
 */
const MAX_WAITING_BYTES = 32 * 1024 * 1024;

export type { MemoryTraceAssemblerOptions, MemoryTraceAssemblerStats };

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
  /**
   * See {@link SpanSink.refusesNow}: shutting down, or the buffer full and no room at the door
   * for a request to wait (see `admissionWaitMs`).
   */
  refusesNow(): SpanscoreError | undefined;
  /** See {@link SpanSink.stopWaiting}. */
  stopWaiting(): void;
  /** The spans of a trace that is buffered or being scored; `undefined` otherwise. */
  pendingSpans(traceId: string): SpanDigest[] | undefined;
  /** Counters for metrics and tests. */
  stats(): MemoryTraceAssemblerStats;
}

/**
 * The `memory` driver: the same assembly as the BullMQ driver, in one process, bounded, with
 * nothing surviving a restart. Three parts: a {@link TraceByteBuffer} holds each trace's spans as
 * bytes (decoded once, when it is scored); a {@link TraceScheduler} says when each trace is
 * complete ({@link traceReadiness}: root ended and quiet for `settleMs`, or `maxWaitMs` after its
 * first span); a {@link ScoringQueue} scores it once, `concurrency` at a time, with retries, and
 * delivers its evaluation spans outside the scoring slot. This file admits spans (refusing a batch
 * whole, `SS_INGEST_SATURATED`, rather than exceed `maxBufferedSpans`) and routes them: to their
 * buffered trace; to a trace queued but not yet read, which is scored with them; or, for a trace
 * being scored or scored within the late window, counted as late, and rescored with every span
 * when `rescoreLateSpans` is on.
 */
export function createMemoryTraceAssembler(
  options: MemoryTraceAssemblerOptions,
): MemoryTraceAssembler {
  const now = options.now ?? Date.now;
  const maxHeld = options.maxBufferedSpans;
  const maxPerTrace = options.maxSpansPerTrace;
  const maxPerService = Math.floor(maxHeld * options.maxServiceShare);
  const lateWindowMs = options.lateWindowMs ?? options.policy.maxWaitMs;
  const buffer = new TraceByteBuffer();
  const scheduler = new TraceScheduler(options.policy, traceId => enqueue(traceId), now);
  const queue = new ScoringQueue({
    concurrency: options.concurrency,
    maxAttempts: options.maxAttempts,
    backoffMs: options.backoffMs,
    ...(options.exportRetry && { exportRetry: options.exportRetry }),
    maxWaitingDeliveries: options.maxWaitingDeliveries ?? MAX_WAITING_DELIVERIES,
    deliveryGraceMs: options.deliveryGraceMs ?? DELIVERY_GRACE_MS,
    ...(options.onFailed && { onFailed: options.onFailed }),
  });
  const scoring = new Map<string, MemoryScoring>();
  // Scored traces: when they leave the late window, and their spans when rescoring is on.
  const scored = new Map<string, { expiresAtMs: number; held: HeldTrace | undefined }>();
  // Spans and bytes held (buffered or being scored), in all and per service.
  const heldBy = new Map<string, number>();
  let held = 0;
  let heldBytes = 0;
  let lateSpans = 0;
  let truncatedSpans = 0;
  let closed = false;
  // Spans of requests being added slice by slice, not added yet; and those requests.
  let reserved = 0;
  const accepting = new Set<Promise<unknown>>();
  // Requests that found the buffer full, waiting for room (`admissionWaitMs`), and their spans
  // by service (counted in the service's share).
  const admissionWaitMs = options.admissionWaitMs ?? 0;
  const waiting = new WaitingRequests({
    maxWaitMs: admissionWaitMs,
    maxSpans: Math.ceil(maxHeld / 4),
    maxBytes: MAX_WAITING_BYTES,
    onTimeout: () => admitWaiting(),
  });
  const waitingBy = new Map<string, number>();

  function hold(service: string, spans: number, bytes: number): void {
    held += spans;
    heldBytes += bytes;
    const by = (heldBy.get(service) ?? 0) + spans;
    if (by > 0) heldBy.set(service, by);
    else heldBy.delete(service);
  }

  /** A ready trace leaves the buffer for the scoring queue. */
  function enqueue(traceId: string): void {
    scheduler.cancel(traceId);
    const trace = buffer.take(traceId);
    if (!trace) return;
    const entry = new MemoryScoring(traceId, trace, runs);
    scoring.set(traceId, entry);
    queue.submitRun(entry);
  }

  // What every trace's run calls back (see MemoryScoring): one object, no closures a trace.
  const runs = {
    score(entry: MemoryScoring) {
      const trace = entry.held;
      const notes = truncationNotes(maxPerTrace, trace.truncated, trace.spans.length);
      // The held array itself, not a copy (about 9 bytes a span an attempt): once the run has
      // started nothing adds to it (late spans go to `late`, a rescore copies it in `reopen`).
      return options.process(entry.traceId, trace.spans, { notes, rescore: trace.rescores });
    },
    finished,
  };

  /** Scored (or failed): its spans are let go, whatever its delivery does. */
  function finished(traceId: string, entry: MemoryScoring): void {
    scoring.delete(traceId);
    // Its spans and its late ones (held again as they are added to its rescore).
    const { held } = entry;
    hold(held.service, -(held.spans.length + entry.lateSpans), -(held.bytes + entry.lateBytes));
    sweep();
    const keep = options.rescoreLateSpans === true;
    scored.set(traceId, { expiresAtMs: now() + lateWindowMs, held: keep ? entry.held : undefined });
    if (keep && entry.late.length > 0) {
      // Spans came while it was scored: scored again with every span, a settle window later.
      scored.delete(traceId);
      const again = reopen(traceId, entry.held, entry.late[0]![0]!.serviceName);
      for (const batch of entry.late) add(again, batch);
      scheduler.touch(traceId, again);
    }
    admitWaiting();
  }

  /**
   * The room in the buffer goes to the requests waiting at the door, first come first in; their
   * spans count as held (`reserved`) until each is added. Called wherever room may appear: a
   * trace scored, a wait ended, a request added (some of its spans late or past their trace's cap).
   */
  function admitWaiting(): void {
    if (waiting.size > 0) reserved += waiting.admit(maxHeld - held - reserved);
  }

  /** Counts `spans` more (or fewer) spans of `service` waiting at the door. */
  function waitingOf(service: string, spans: number): void {
    const by = (waitingBy.get(service) ?? 0) + spans;
    if (by > 0) waitingBy.set(service, by);
    else waitingBy.delete(service);
  }

  function sweep(): void {
    const t = now();
    for (const [traceId, entry] of scored) {
      if (entry.expiresAtMs > t) break; // insertion order is expiry order
      scored.delete(traceId);
    }
  }

  /** A buffered trace started again from the spans it was scored with. */
  function reopen(traceId: string, from: HeldTrace, service: string): HeldTrace {
    const trace = buffer.open(traceId, from.service || service, now(), from);
    hold(trace.service, trace.spans.length, trace.bytes);
    return trace;
  }

  /**
   * Adds a batch to a held trace (which may keep the array), counting what it kept and refused.
   * What it kept is counted even when the add throws after keeping it (a span whose attributes
   * cannot be read, met while reading the trace's readiness facts): no span is held uncounted.
   */
  function add(trace: HeldTrace, batch: SpanDigest[]): number {
    const spans = trace.spans.length;
    const bytes = trace.bytes;
    try {
      const refused = buffer.add(trace, batch, now(), maxPerTrace);
      truncatedSpans += refused;
      return refused;
    } finally {
      hold(trace.service, trace.spans.length - spans, trace.bytes - bytes);
    }
  }

  /** Counts `count` late spans of a trace (of a batch, those not refused); returns `refused`. */
  function late(traceId: string, count: number, refused: number): number {
    lateSpans += count;
    if (count > 0) options.onLateSpans?.(traceId, count);
    return refused;
  }

  /** Adds one trace's spans of a request; returns how many were refused (past its cap). */
  function acceptTrace(traceId: string, batch: SpanDigest[], t: number): number {
    let trace = buffer.get(traceId);
    let rescored = false;
    if (!trace) {
      const inScoring = scoring.get(traceId);
      if (inScoring && !inScoring.started) {
        // Queued, its spans not read yet: scored with these too.
        return add(inScoring.held, batch);
      }
      const done = inScoring ? undefined : scored.get(traceId);
      if (inScoring || (done && done.expiresAtMs > t)) {
        // Counted late as bullmq counts them: the spans not refused (all, without rescoring).
        if (!options.rescoreLateSpans) return late(traceId, batch.length, 0);
        if (inScoring) {
          // Rescored when its scoring ends (finished()): the spans within the cap, held meanwhile.
          const kept = inScoring.keepLate(batch, maxPerTrace);
          truncatedSpans += batch.length - kept.spans;
          hold(inScoring.held.service, kept.spans, kept.bytes);
          return late(traceId, kept.spans, batch.length - kept.spans);
        }
        // At its cap, its late spans are refused and it is not rescored (as the bullmq driver).
        if (done!.held!.spans.length >= maxPerTrace) {
          truncatedSpans += batch.length;
          return batch.length;
        }
        // Rescore: start again from the spans already scored, plus the late ones.
        scored.delete(traceId);
        trace = reopen(traceId, done!.held!, batch[0]!.serviceName);
        rescored = true;
      } else trace = buffer.open(traceId, batch[0]!.serviceName, t);
    }
    try {
      const refused = add(trace, batch);
      return rescored ? late(traceId, batch.length - refused, refused) : refused;
    } finally {
      // Scheduled whatever the add did: a trace held is scored or expires, never left behind.
      scheduler.touch(traceId, trace);
    }
  }

  /**
   * A request of many traces (a burst of small ones), added {@link ACCEPT_SLICE} traces at a time
   * with a turn of the event loop between slices, so that `/healthz` and other requests are
   * answered while it is added. Its spans are counted as held from the start (`reserved`), so
   * requests answered in between see the buffer as it will be.
   */
  async function acceptInSlices(
    byTrace: Map<string, SpanDigest[]>,
    count: number,
  ): Promise<PartlyRefused | void> {
    reserved += count;
    let refused = 0;
    let inSlice = 0;
    try {
      for (const [traceId, batch] of byTrace) {
        if (++inSlice > ACCEPT_SLICE) {
          inSlice = 1;
          await new Promise(resolve => setImmediate(resolve));
        }
        reserved -= batch.length;
        count -= batch.length;
        refused += acceptTrace(traceId, batch, now());
      }
    } finally {
      reserved -= count;
      admitWaiting();
    }
    return refusedPastCap(refused, maxPerTrace);
  }

  /** Shutting down: every request is refused (503), to be sent to the next instance. */
  function unavailable(): SpanscoreError {
    return new SpanscoreError('SS_INGEST_UNAVAILABLE', 'the receiver is shutting down', {
      retryAfterSeconds: 5,
    });
  }

  /** Whether the buffer is too full to take `incoming` more spans now. */
  function full(incoming: number): boolean {
    return held + reserved + incoming > maxHeld;
  }

  /** The buffer is full (429); `waitedMs`: after the request waited that long for room. */
  function saturated(waitedMs?: number): SpanscoreError {
    const after = waitedMs === undefined ? '' : ` after waiting ${waitedMs} ms for room`;
    return new SpanscoreError(
      'SS_INGEST_SATURATED',
      `the span buffer holds ${held + reserved} of at most ${maxHeld} spans${after}`,
      { retryAfterSeconds: 1 },
    );
  }

  /**
   * A service past its share while others' spans are held is refused alone (429): one agent
   * flooding the buffer does not lock the others out. Its spans waiting at the door count.
   */
  function shareRefusal(spans: readonly SpanDigest[]): SpanscoreError | undefined {
    const service = spans[0]?.serviceName ?? '';
    const heldByService = heldBy.get(service) ?? 0;
    const byService = heldByService + (waitingBy.get(service) ?? 0);
    if (byService + spans.length <= maxPerService || held - heldByService <= 0) return undefined;
    return new SpanscoreError(
      'SS_INGEST_SATURATED',
      `service "${service}" holds ${byService} buffered spans, its share of the buffer (assembly.maxServiceShare of ${maxHeld}) while other services send`,
      { retryAfterSeconds: 1 },
    );
  }

  /**
   * Past `maxBufferedBytes` of attribute records held outside the heap, a request is refused (429)
   * while any span is held (alone, one is let in: its size is the body limit's to bound).
   */
  function bytesRefusal(spans: readonly SpanDigest[]): SpanscoreError | undefined {
    if (heldBytes === 0 || options.maxBufferedBytes === undefined) return undefined;
    const bytes = unreadRecordBytes(spans);
    if (heldBytes + bytes <= options.maxBufferedBytes) return undefined;
    return new SpanscoreError(
      'SS_INGEST_SATURATED',
      `the span buffer holds ${heldBytes} bytes of attributes, and this request ${bytes} more, past ${options.maxBufferedBytes} (assembly.maxBufferedBytes)`,
      { retryAfterSeconds: 1 },
    );
  }

  /** Adds an admitted request's spans, trace by trace (in slices when it holds many traces). */
  function admit(spans: SpanDigest[]): Promise<PartlyRefused | void> {
    const byTrace = groupSpansByTrace(spans);
    if (byTrace.size <= ACCEPT_SLICE) {
      const t = now();
      let refused = 0;
      try {
        // `forEach`, not `for…of`: no entry array and result object a trace.
        byTrace.forEach((batch, traceId) => (refused += acceptTrace(traceId, batch, t)));
      } catch (error) {
        // A promise, as `accept` promises, never a throw.
        return Promise.reject(error instanceof Error ? error : new Error(String(error)));
      }
      return Promise.resolve(refusedPastCap(refused, maxPerTrace));
    }
    const slices = acceptInSlices(byTrace, spans.length);
    accepting.add(slices);
    void slices.finally(() => accepting.delete(slices));
    return slices;
  }

  return {
    pending(traceId) {
      const b = buffer.get(traceId);
      if (b)
        return { firstSeenMs: b.firstSeenMs, lastSeenMs: b.lastSeenMs, rootEnded: b.rootEnded };
      const s = scoring.get(traceId)?.held;
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
      const held = buffer.get(traceId) ?? scoring.get(traceId)?.held;
      return held && [...held.spans];
    },
    refusesNow() {
      if (closed) return unavailable();
      // A full buffer with room at the door: the request is decoded, then waits for room.
      return full(1) && !waiting.canWait(1, 0) ? saturated() : undefined;
    },
    accept(spans, signal): Promise<PartlyRefused | void> {
      if (closed) return Promise.reject(unavailable());
      const share = shareRefusal(spans);
      if (share) return Promise.reject(share);
      const tooManyBytes = bytesRefusal(spans);
      if (tooManyBytes) return Promise.reject(tooManyBytes);
      const incoming = spans.length;
      // In at once when there is room and nobody waits; else behind those waiting, first come
      // first in, while the door has room (none overtakes them); else refused.
      if (waiting.size === 0 && !full(incoming)) return admit(spans);
      const bytes = unreadRecordBytes(spans);
      if (!waiting.canWait(incoming, bytes)) return Promise.reject(saturated());
      // A waiting request keeps its attribute records, not the request body they point into.
      ownRecords(spans, 0);
      const service = spans[0]?.serviceName ?? '';
      waitingOf(service, incoming);
      return waiting
        .wait(incoming, bytes, () => saturated(admissionWaitMs), signal)
        .then(
          () => {
            waitingOf(service, -incoming);
            reserved -= incoming; // counted as held when let in (see admitWaiting)
            if (closed) return Promise.reject(unavailable());
            const added = admit(spans);
            admitWaiting(); // spans late or past their trace's cap were not held
            return added;
          },
          (error: unknown) => {
            waitingOf(service, -incoming);
            throw error;
          },
        );
    },
    stopWaiting() {
      waiting.refuseAll(unavailable());
    },

    async close(deadlineMs = 10_000) {
      closed = true;
      waiting.refuseAll(unavailable());
      // Requests being added slice by slice were answered nothing yet: they finish first.
      await Promise.allSettled([...accepting]);
      for (const [traceId] of [...buffer.entries()]) enqueue(traceId);
      return queue.close(deadlineMs);
    },

    stats: () => ({
      bufferedTraces: buffer.size,
      heldSpans: held,
      heldBytes,
      waitingRequests: waiting.size,
      waitingSpans: waiting.waitingSpans,
      reservedSpans: reserved,
      waitingDeliveries: queue.waitingDeliveries,
      truncatedSpans,
      lateSpans,
      ...queue.counters,
    }),
  };
}
