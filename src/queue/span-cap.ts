import type { PartlyRefused } from '../ingest/span-sink.js';
import type { Diagnostic } from '../normalize/inspect-trace.js';

/**
 * What both drivers say of `assembly.maxSpansPerTrace`: to the sender, the spans of an accepted
 * request that were not kept (`partialSuccess`); to scoring, that a trace was truncated.
 */

/** The request's spans refused past the cap, for the receiver; `undefined` when none were. */
export function refusedPastCap(refused: number, limit: number): PartlyRefused | undefined {
  return refused > 0
    ? {
        refusedSpans: refused,
        reason: `trace(s) past assembly.maxSpansPerTrace (${limit} spans): later spans are not kept`,
      }
    : undefined;
}

/** The diagnostic of a trace scored with `kept` spans after `dropped` were refused; none if none were. */
export function truncationNotes(limit: number, dropped: number, kept: number): Diagnostic[] {
  return dropped > 0
    ? [
        {
          code: 'trace_truncated',
          message: `the trace has more spans than a trace may keep (assembly.maxSpansPerTrace ${limit}): ${dropped} later span(s) were refused, and it was scored with its first ${kept}`,
        },
      ]
    : [];
}
