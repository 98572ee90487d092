import type { SpanDigest } from '../ingest/span-digest.js';
import { WireSpanDigest } from '../ingest/wire-span-digest.js';
import { isRootSpan } from '../normalize/trace-root.js';
import { logsState, type TraceProgress } from './trace-readiness.js';

/** One trace as the memory driver holds it: its spans as bytes, and what readiness needs. */
export interface HeldTrace extends TraceProgress {
  /** The trace's spans; those from the protobuf decoder with their attributes as bytes. */
  spans: SpanDigest[];
  /** Its span ids, to keep each span once (an exporter retrying sends a request again). */
  spanIds: Set<string>;
  /** Bytes of attribute records held for `spans`, outside the V8 heap. */
  bytes: number;
  awaitingLogs: boolean;
  /** A log record of the trace arrived. */
  logsSeen: boolean;
  /** The service its spans are counted against (the first span's). */
  service: string;
  /** Spans refused past `maxSpansPerTrace`. */
  truncated: number;
}

/** What adding one request's spans of a trace did. */
export interface Added {
  /** Spans kept (new span ids within the cap). */
  added: number;
  /** Spans refused past the cap. */
  refused: number;
  /** Bytes the kept spans take. */
  bytes: number;
}

/**
 * The memory driver's span storage. A span from the protobuf decoder comes with its attributes
 * unread, as the `KeyValue` bytes of its request (`WireSpanDigest`): they stay bytes, copied into
 * one Buffer per request and trace, outside the V8 heap (what an agent's spans mostly weigh:
 * prompts, arguments, results), and are decoded when scoring first reads them. The request body
 * is let go, and the receiver decodes no attribute. What stays on the heap per span is its
 * envelope: ids, name, times, status (strings shared between spans where they repeat). Holds the
 * facts readiness needs (first and last arrival, root ended, log records awaited), updated from
 * each batch; counting against limits is the caller's.
 */
export class TraceByteBuffer {
  private readonly traces = new Map<string, HeldTrace>();

  get size(): number {
    return this.traces.size;
  }

  get(traceId: string): HeldTrace | undefined {
    return this.traces.get(traceId);
  }

  /** Every held trace, oldest first. */
  entries(): IterableIterator<[string, HeldTrace]> {
    return this.traces.entries();
  }

  /** A new held trace, or one started from spans kept before (a rescore). */
  open(traceId: string, service: string, nowMs: number, from?: HeldTrace): HeldTrace {
    const held: HeldTrace = {
      spans: from ? [...from.spans] : [],
      spanIds: from ? new Set(from.spanIds) : new Set(),
      bytes: from?.bytes ?? 0,
      firstSeenMs: nowMs,
      lastSeenMs: nowMs,
      // A rescore settles like a trace whose root has ended: it was scored once already.
      rootEnded: from !== undefined,
      awaitingLogs: false,
      logsSeen: from !== undefined,
      service,
      truncated: 0,
    };
    this.traces.set(traceId, held);
    return held;
  }

  /** Removes a trace and gives it back (to be scored). */
  take(traceId: string): HeldTrace | undefined {
    const held = this.traces.get(traceId);
    this.traces.delete(traceId);
    return held;
  }

  /**
   * Adds one request's spans of `held`'s trace: each span id once, at most `maxSpans` spans in
   * all, the rest refused (and counted in `truncated`); the readiness facts updated.
   */
  add(held: HeldTrace, batch: readonly SpanDigest[], nowMs: number, maxSpans: number): Added {
    // The batch itself while every span is kept (the usual case): a copy only from the first
    // span left out (seen already, or past `maxSpans`).
    let copy: SpanDigest[] | undefined;
    let refused = 0;
    for (let i = 0; i < batch.length; i++) {
      const span = batch[i]!;
      const seen = held.spanIds.has(span.spanId);
      if (seen || held.spanIds.size >= maxSpans) {
        copy ??= batch.slice(0, i);
        if (!seen) refused++;
        continue;
      }
      held.spanIds.add(span.spanId);
      copy?.push(span);
    }
    const kept: readonly SpanDigest[] = copy ?? batch;
    held.truncated += refused;
    held.lastSeenMs = nowMs;
    if (kept.length === 0) return { added: 0, refused, bytes: 0 };
    const bytes = ownRecords(kept);
    for (const span of kept) held.spans.push(span);
    held.bytes += bytes;
    if (!held.rootEnded) held.rootEnded = kept.some(s => isRootSpan(s, held.spanIds));
    if (!held.logsSeen) {
      const logs = logsState(kept);
      if (logs === 'record') held.logsSeen = true;
      held.awaitingLogs = !held.logsSeen && (held.awaitingLogs || logs === 'writer');
    }
    return { added: kept.length, refused, bytes };
  }
}

/**
 * Moves the unread attribute records of `spans` into one Buffer of their own size (not a slice
 * of Node's shared pool, which a view held for seconds would keep whole); returns its size.
 */
function ownRecords(spans: readonly SpanDigest[]): number {
  let total = 0;
  for (const span of spans) if (span instanceof WireSpanDigest) total += span.recordsLength();
  if (total === 0) return 0;
  const own = Buffer.allocUnsafeSlow(total);
  let at = 0;
  for (const span of spans) if (span instanceof WireSpanDigest) at += span.moveRecords(own, at);
  return total;
}
