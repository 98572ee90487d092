import type { SpanDigest } from '../ingest/span-digest.js';
import { RecordCopier } from '../ingest/record-copier.js';
import { WireSpanDigest } from '../ingest/wire-span-digest.js';
import { indexOfSpanId } from '../normalize/index-of-span-id.js';
import { isRootSpan } from '../normalize/trace-root.js';
import { logsState, type TraceProgress } from './trace-readiness.js';

/**
 * Spans of a trace up to which a span id is looked for among the held spans themselves; past it,
 * in a Set of their ids (built then). Most traces stay under it: no Set, grown four times on the
 * way to 20 spans, is made or held for them.
 */
const LINEAR_SPAN_IDS = 32;

/** One trace as the memory driver holds it: its spans as bytes, and what readiness needs. */
export class HeldTrace implements TraceProgress {
  /** The trace's spans, each span id once; those from the protobuf decoder with their attributes as bytes. */
  spans: SpanDigest[];
  /**
   * Its span ids once it holds more than {@link LINEAR_SPAN_IDS} spans (see {@link HeldTrace.has});
   * `undefined` before.
   */
  spanIds: Set<string> | undefined;
  /** Bytes of attribute records held for `spans`, outside the V8 heap. */
  bytes: number;
  firstSeenMs: number;
  lastSeenMs: number;
  rootEnded: boolean;
  awaitingLogs = false;
  /** A log record of the trace arrived. */
  logsSeen: boolean;
  /** Spans refused past `maxSpansPerTrace`. */
  truncated = 0;
  /** Rescores of the trace this is (late spans): 0 for its first scoring, 1 for its first rescore. */
  readonly rescores: number;

  /**
   * A new held trace, or one started from spans kept before (`from`, a rescore). `service`: the
   * one its spans are counted against (the first span's).
   */
  constructor(
    readonly service: string,
    nowMs: number,
    from?: HeldTrace,
  ) {
    this.spans = from ? [...from.spans] : [];
    this.spanIds = from?.spanIds ? new Set(from.spanIds) : undefined;
    this.bytes = from?.bytes ?? 0;
    // Spans refused before it (a rescore says so too, as the bullmq buffer's `dropped` does).
    this.truncated = from?.truncated ?? 0;
    this.firstSeenMs = nowMs;
    this.lastSeenMs = nowMs;
    // A rescore settles like a trace whose root has ended: it was scored once already.
    this.rootEnded = from !== undefined;
    this.logsSeen = from !== undefined;
    this.rescores = from ? from.rescores + 1 : 0;
  }

  /**
   * A span with this id is held already (an exporter retrying sends a request again): among the
   * first `upTo` spans (all of them unless given) until {@link HeldTrace.spanIds} is built.
   */
  has(spanId: string, upTo = this.spans.length): boolean {
    if (this.spanIds) return this.spanIds.has(spanId);
    return indexOfSpanId(this.spans, spanId, upTo) !== -1;
  }
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
    const held = new HeldTrace(service, nowMs, from);
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
   * all, the rest refused (and counted in `truncated`); the readiness facts updated. A span id
   * held already (from an earlier request) keeps its first copy, as the `bullmq` driver's buffer
   * does (`RedisSpanBuffer.read`) and a request's own grouping (`groupSpansByTrace`).
   * Returns the spans refused past `maxSpans`; what was kept is what `held.spans` and
   * `held.bytes` grew by.
   * The caller gives `batch` up: when `held` has no spans yet, `batch` becomes its spans array,
   * the spans kept moved to its front (no copy of a trace's first batch, grown push by push).
   */
  add(held: HeldTrace, batch: SpanDigest[], nowMs: number, maxSpans: number): number {
    const from = held.spans.length;
    if (from === 0) held.spans = batch;
    const spans = held.spans;
    let n = from;
    let refused = 0;
    for (let i = 0; i < batch.length; i++) {
      const span = batch[i]!;
      if (held.has(span.spanId, n)) continue;
      if (n >= maxSpans) {
        refused++;
        continue;
      }
      spans[n++] = span; // at or before `i` when `batch` is `spans`
      if (held.spanIds) held.spanIds.add(span.spanId);
      else if (n > LINEAR_SPAN_IDS) held.spanIds = spanIdsOf(spans, n);
    }
    spans.length = n;
    held.truncated += refused;
    held.lastSeenMs = nowMs;
    if (n === from) return refused;
    held.bytes += ownRecords(spans, from);
    if (!held.rootEnded) {
      for (let i = from; i < spans.length && !held.rootEnded; i++)
        held.rootEnded = isRootSpan(spans[i]!, held);
    }
    if (!held.logsSeen) {
      const logs = logsState(spans, from);
      if (logs === 'record') held.logsSeen = true;
      held.awaitingLogs = !held.logsSeen && (held.awaitingLogs || logs === 'writer');
    }
    return refused;
  }
}

function spanIdsOf(spans: readonly SpanDigest[], n: number): Set<string> {
  const ids = new Set<string>();
  for (let i = 0; i < n; i++) ids.add(spans[i]!.spanId);
  return ids;
}

/** Bytes of the unread attribute records of `spans` from `from` on: what {@link ownRecords} copies. */
export function unreadRecordBytes(spans: readonly SpanDigest[], from = 0): number {
  let total = 0;
  for (let i = from; i < spans.length; i++) {
    const span = spans[i];
    if (span instanceof WireSpanDigest) total += span.recordsLength();
  }
  return total;
}

/**
 * Moves the unread attribute records of `spans` from `from` on into one Buffer of their own size
 * (not a slice of Node's shared pool, nor the request body they were decoded from, which a view
 * held for seconds would keep whole); returns its size.
 */
export function ownRecords(spans: readonly SpanDigest[], from: number): number {
  const total = unreadRecordBytes(spans, from);
  if (total === 0) return 0;
  const own = Buffer.allocUnsafeSlow(total);
  const copier = new RecordCopier(own);
  let at = 0;
  for (let i = from; i < spans.length; i++) {
    const span = spans[i];
    if (span instanceof WireSpanDigest) at += span.moveRecords(own, at, copier);
  }
  return total;
}
