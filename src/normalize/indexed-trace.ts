import type { SpanDigest } from '../ingest/span-digest.js';
import { joinLogEventsWithRoot } from './join-log-events.js';
import { SpanIndex } from './span-index.js';
import { findRoot } from './trace-root.js';

/**
 * One trace, read once for what every stage asks of it first: its spans with their GenAI log
 * events joined ({@link joinLogEventsWithRoot}), its root (`findRoot`) and its spans by id
 * ({@link SpanIndex}). `scoreTrace` builds it once and passes it on (to matching, normalizing,
 * its ids: `findIdAttributes` reads them all in one walk), so nothing downstream joins, roots or
 * indexes the trace again.
 */
export class IndexedTrace {
  readonly byId: SpanIndex;

  /** `spans` already joined, `root` found among them: what {@link indexTrace} gives. */
  constructor(
    readonly spans: readonly SpanDigest[],
    readonly root: SpanDigest | undefined,
    byId?: SpanIndex,
  ) {
    this.byId = byId ?? new SpanIndex(spans);
  }
}

/** Indexes one trace's spans as they arrived: log events joined, root found, spans by id. */
export function indexTrace(traceSpans: readonly SpanDigest[]): IndexedTrace {
  const joined = joinLogEventsWithRoot(traceSpans);
  if (joined) return new IndexedTrace(joined.spans, joined.root);
  const byId = new SpanIndex(traceSpans);
  return new IndexedTrace(traceSpans, findRoot(traceSpans, byId), byId);
}
