import type { SpanDigest } from '../ingest/span-digest.js';

/** When a trace counts as complete. */
export interface ReadinessPolicy {
  /** Quiet time after the last span, once the root has ended. @defaultValue 2000 */
  settleMs: number;
  /** Time since the first span after which the trace is scored whatever arrived. @defaultValue 30000 */
  maxWaitMs: number;
}

/** What the assembler knows of a buffered trace. */
export interface TraceProgress {
  firstSeenMs: number;
  lastSeenMs: number;
  rootEnded: boolean;
}

/** The decision for a trace at a moment: score it now (and why), or check again at `recheckAtMs`. */
export type Readiness =
  { ready: true; reason: 'settled' | 'max_wait' } | { ready: false; recheckAtMs: number };

/**
 * Decides whether a buffered trace is complete, as DESIGN "Trace completeness" says (the idea of
 * the Collector's groupbytrace and tail_sampling processors): ready when its root span has ended and
 * no span has arrived for `settleMs`, or when `maxWaitMs` has passed since its first span. Pure.
 */
export function traceReadiness(
  progress: TraceProgress,
  nowMs: number,
  policy: ReadinessPolicy,
): Readiness {
  const deadline = progress.firstSeenMs + policy.maxWaitMs;
  if (nowMs >= deadline) return { ready: true, reason: 'max_wait' };
  if (progress.rootEnded) {
    const settledAt = progress.lastSeenMs + policy.settleMs;
    if (nowMs >= settledAt) return { ready: true, reason: 'settled' };
    return { ready: false, recheckAtMs: Math.min(settledAt, deadline) };
  }
  return { ready: false, recheckAtMs: deadline };
}

/**
 * True when `span` ends the trace's root part: it has no parent, or it is the entry of this
 * service boundary (kind SERVER or CONSUMER) with a parent in another process. Spans are exported
 * when they end, so a root that arrived has ended.
 */
export function isRootSpan(span: SpanDigest, knownSpanIds: ReadonlySet<string>): boolean {
  if (span.parentSpanId === '') return true;
  return (span.kind === 2 || span.kind === 5) && !knownSpanIds.has(span.parentSpanId);
}
