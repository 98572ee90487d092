import { LOG_RECORD_ATTRIBUTE } from '../ingest/log-event-carrier.js';
import type { SpanDigest } from '../ingest/span-digest.js';
import { writesCallsToLogs } from '../normalize/model-span.js';

/** When a trace counts as complete. */
export interface ReadinessPolicy {
  /** Quiet time after the last span, once the root has ended. @defaultValue 2000 */
  settleMs: number;
  /** Time since the first span after which the trace is scored whatever arrived. @defaultValue 30000 */
  maxWaitMs: number;
  /**
   * How much longer than `settleMs` a trace waits while it awaits log records (see
   * {@link TraceProgress.awaitingLogs}). @defaultValue 0
   */
  logsWaitMs?: number;
}

/** What the assembler knows of a buffered trace. */
export interface TraceProgress {
  firstSeenMs: number;
  lastSeenMs: number;
  rootEnded: boolean;
  /**
   * A model span of an instrumentation that writes its calls as OTLP log records arrived, and no
   * log record of the trace yet: the calls are still on their way.
   */
  awaitingLogs?: boolean;
}

/** The decision for a trace at a moment: score it now (and why), or check again at `recheckAtMs`. */
export type Readiness =
  { ready: true; reason: 'settled' | 'max_wait' } | { ready: false; recheckAtMs: number };

/**
 * Decides whether a buffered trace is complete, as DESIGN "Trace completeness" says (the idea of
 * the Collector's groupbytrace and tail_sampling processors): ready when its root span has ended and
 * no span has arrived for `settleMs` (`logsWaitMs` more while it awaits its log records), or when
 * `maxWaitMs` has passed since its first span. Pure.
 */
export function traceReadiness(
  progress: TraceProgress,
  nowMs: number,
  policy: ReadinessPolicy,
): Readiness {
  const deadline = progress.firstSeenMs + policy.maxWaitMs;
  if (nowMs >= deadline) return { ready: true, reason: 'max_wait' };
  if (progress.rootEnded) {
    const quietAt = progress.lastSeenMs + policy.settleMs;
    const settledAt = quietAt + (progress.awaitingLogs === true ? (policy.logsWaitMs ?? 0) : 0);
    if (nowMs >= settledAt) return { ready: true, reason: 'settled' };
    // While its log records are awaited, the trace is looked at again every `settleMs`: a queue
    // that learns of their arrival only when it looks scores it soon after they come.
    const next = nowMs >= quietAt ? Math.min(nowMs + policy.settleMs, settledAt) : quietAt;
    return { ready: false, recheckAtMs: Math.min(next, deadline) };
  }
  return { ready: false, recheckAtMs: deadline };
}

/**
 * What one batch of a trace's spans says of its log records: `record` when it holds one (a GenAI
 * log record kept as a carrier span: zero-length, marked), else `writer` when it holds a model
 * span of an instrumentation that writes its calls as log records, else `undefined`. Reads the
 * attributes of carriers and of the logs-writers' spans only. `from`: the first span looked at.
 */
export function logsState(spans: readonly SpanDigest[], from = 0): 'record' | 'writer' | undefined {
  let writer = false;
  for (let i = from; i < spans.length; i++) {
    const span = spans[i]!;
    // A carrier lasts no time; only such a span's attributes are read, so the receiver decodes
    // no attribute of the spans that carry an agent's work.
    if (
      span.startTimeUnixNano === span.endTimeUnixNano &&
      span.attributes[LOG_RECORD_ATTRIBUTE] === true
    )
      return 'record';
    if (!writer && writesCallsToLogs(span)) writer = true;
  }
  return writer ? 'writer' : undefined;
}
