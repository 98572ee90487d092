import type { SpanDigest } from '../ingest/span-digest.js';
import { indexOfSpanId } from './index-of-span-id.js';

/**
 * One trace's spans by id. Agent traces are small: up to 16 spans a scan beats any index. A
 * larger trace is indexed on first use by a copy of its spans sorted by id (one walk of the trace)
 * and searched by halves: one array, where a Map's hash table took about 85 bytes a span (1,700
 * for the 20-span agent trace). Of two spans with one id, both find the first in span order (the
 * sorts are stable, the search finds an id's first place), the copy a trace keeps of a span sent
 * twice (`groupSpansByTrace`): a caller handing in such a trace gets one answer at any size.
 */
export class SpanIndex {
  #byId: SpanDigest[] | undefined;

  constructor(private readonly spans: readonly SpanDigest[]) {}

  get(spanId: string): SpanDigest | undefined {
    const spans = this.spans;
    if (spans.length <= 16) {
      const at = indexOfSpanId(spans, spanId, spans.length);
      return at === -1 ? undefined : spans[at];
    }
    const byId = (this.#byId ??= sortedById(spans));
    // The first span whose id does not sort before spanId: it holds spanId, if any does.
    let lo = 0;
    let hi = byId.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (before(byId[mid]!.spanId, spanId)) lo = mid + 1;
      else hi = mid;
    }
    const span = byId[lo];
    return span?.spanId === spanId ? span : undefined;
  }

  /**
   * Whether `span` is the copy of its id the trace counts: the first in span order, as
   * {@link SpanIndex.get} finds and `groupSpansByTrace` and both drivers keep. A reader that
   * collects spans by id (agent spans, offering spans) skips the others, so that a span sent
   * again under a known id, by a retry or by anyone else, never replaces the first.
   */
  isCounted(span: SpanDigest): boolean {
    return this.get(span.spanId) === span;
  }
}

// The spans in id order, in span order among equal ids: sorted by insertion while few (the native
// sort's comparator and work copy were half the index's bytes), else by the native (stable) sort.
function sortedById(spans: readonly SpanDigest[]): SpanDigest[] {
  const n = spans.length;
  const out = new Array<SpanDigest>(n);
  if (n > 64) {
    for (let i = 0; i < n; i++) out[i] = spans[i]!;
    return out.sort((a, b) => (a.spanId < b.spanId ? -1 : a.spanId > b.spanId ? 1 : 0));
  }
  for (let i = 0; i < n; i++) {
    const span = spans[i]!;
    const id = span.spanId;
    let j = i - 1;
    for (; j >= 0 && !atMost(out[j]!.spanId, id); j--) out[j + 1] = out[j]!;
    out[j + 1] = span;
  }
  return out;
}

/**
 * `a <= b` as strings compare (by UTF-16 units), decided by the first units, inline, when they
 * differ (all but one in sixteen random hex ids), else by a call into the runtime (`| 0`: an empty
 * id's NaN as 0, below every other first unit but 0 itself, which the call then decides).
 */
function atMost(a: string, b: string): boolean {
  const x = a.charCodeAt(0) | 0;
  const y = b.charCodeAt(0) | 0;
  return x !== y ? x < y : a <= b;
}

/** `a < b` as strings compare, decided as {@link atMost} decides. */
function before(a: string, b: string): boolean {
  const x = a.charCodeAt(0) | 0;
  const y = b.charCodeAt(0) | 0;
  return x !== y ? x < y : a < b;
}
