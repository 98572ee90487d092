import { isLogEventCarrier } from '../ingest/log-event-carrier.js';
import type { SpanDigest, SpanEventDigest } from '../ingest/span-digest.js';
import { emptyAttributes } from '../ingest/span-digest.js';
import { SpanIndex } from './span-index.js';
import { findRoot } from './trace-root.js';

/**
 * A trace's spans with its GenAI log events joined in: each carrier (a log record kept as a span
 * digest, see `log-event-carrier.ts`) becomes an event of the span its record names, or, when the
 * record names no span or a span that never arrived, of the trace's root. Extractors then read
 * messages the same way whichever signal carried them. Spans that gain events are copies; the
 * input is not modified, and a trace without carriers comes back as the same array. A trace of
 * carriers only (its spans never arrived) gets one span holding them all, so its log events are
 * still read. Pure; idempotent.
 *
 * The events keep the record's attributes, its body under `body`, and the carrier marker, which
 * the extractors read to say a call came from the logs signal.
 */
export function joinLogEvents(spans: readonly SpanDigest[]): readonly SpanDigest[] {
  return joinLogEventsWithRoot(spans)?.spans ?? spans;
}

/**
 * {@link joinLogEvents}, with the root of the joined spans (`findRoot`'s), which joining finds on
 * the way; `undefined` when the trace has no carriers: nothing was joined and no root looked for.
 */
export function joinLogEventsWithRoot(
  spans: readonly SpanDigest[],
): { spans: readonly SpanDigest[]; root: SpanDigest | undefined } | undefined {
  let carriers: SpanDigest[] | undefined;
  // An index loop: it runs for every trace, and a for-of left an iterator result per span.
  for (let i = 0; i < spans.length; i++) {
    const span = spans[i]!;
    if (isCarrierShaped(span) && isLogEventCarrier(span)) (carriers ??= []).push(span);
  }
  if (!carriers) return undefined;
  const isCarrier = new Set(carriers);
  const kept = spans.filter(s => !isCarrier.has(s));
  const byId = new SpanIndex(kept);
  const root = findRoot(kept, byId);
  const added = new Map<SpanDigest, SpanEventDigest[]>();
  let holder: SpanDigest | undefined;
  for (const carrier of carriers) {
    let target = byId.get(carrier.parentSpanId) ?? root;
    if (!target) {
      holder ??= {
        ...carrier,
        parentSpanId: '',
        name: 'gen_ai.log_events',
        attributes: emptyAttributes(),
        events: [],
      };
      target = holder;
    }
    let events = added.get(target);
    if (!events) added.set(target, (events = []));
    events.push({
      name: carrier.name,
      timeUnixNano: carrier.startTimeUnixNano,
      attributes: carrier.attributes,
    });
  }
  // The joined spans have the ids, parents and times of those kept: the root is the same span
  // (its copy when it gained events), or, when they have none, the span holding the events.
  let joinedRoot: SpanDigest | undefined;
  const out = kept.map(span => {
    const events = added.get(span);
    const joined = events ? { ...span, events: mergeByTime(span.events, events) } : span;
    if (span === root) joinedRoot = joined;
    return joined;
  });
  if (holder) {
    const joined = { ...holder, events: mergeByTime([], added.get(holder)!) };
    out.push(joined);
    joinedRoot ??= joined;
  }
  return { spans: out, root: joinedRoot };
}

/**
 * Cheap pre-check before the marker attribute is read (reading attributes decodes them on a
 * protobuf span): a carrier is INTERNAL, zero-length, and has a parent.
 */
function isCarrierShaped(span: SpanDigest): boolean {
  return (
    span.kind === 1 &&
    span.parentSpanId !== '' &&
    span.startTimeUnixNano === span.endTimeUnixNano &&
    span.events.length === 0
  );
}

function mergeByTime(own: readonly SpanEventDigest[], added: SpanEventDigest[]): SpanEventDigest[] {
  const all = [...own, ...added];
  // Stable: events at the same time keep the order the records arrived in.
  return all.sort((a, b) =>
    a.timeUnixNano < b.timeUnixNano ? -1 : a.timeUnixNano > b.timeUnixNano ? 1 : 0,
  );
}
