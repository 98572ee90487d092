import type { SpanDigest } from '../ingest/span-digest.js';
import { SpanIndex } from './span-index.js';

/** The root span: parentless, or whose parent is not among the spans; the earliest wins. */
export function findRoot(spans: readonly SpanDigest[]): SpanDigest | undefined {
  const byId = new SpanIndex(spans);
  let root: SpanDigest | undefined;
  for (const span of spans) {
    const parent = span.parentSpanId;
    if (parent !== '' && byId.get(parent) !== undefined) continue;
    if (!root || span.startTimeUnixNano < root.startTimeUnixNano) root = span;
  }
  return root;
}
