import type { SpanDigest } from '../ingest/span-digest.js';

/**
 * One trace's spans by id. Agent traces are small: up to 16 spans a scan beats any index. A
 * larger trace is indexed on first use by its spans' positions sorted by id and searched by
 * halves: one array of positions, where a Map's hash table took about 85 bytes a span (1,700 for
 * the 20-span agent trace). Of two spans with one id, a scan finds the first and the index the
 * last, as the Map it replaces (filled in span order) did.
 */
export class SpanIndex {
  #byId: number[] | undefined;

  constructor(private readonly spans: readonly SpanDigest[]) {}

  get(spanId: string): SpanDigest | undefined {
    const spans = this.spans;
    if (spans.length <= 16) {
      for (const span of spans) if (span.spanId === spanId) return span;
      return undefined;
    }
    const byId = (this.#byId ??= positionsById(spans));
    // The first position whose id sorts after spanId; the one before it holds spanId, if any does.
    let lo = 0;
    let hi = byId.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (spans[byId[mid]!]!.spanId <= spanId) lo = mid + 1;
      else hi = mid;
    }
    const span = lo > 0 ? spans[byId[lo - 1]!] : undefined;
    return span?.spanId === spanId ? span : undefined;
  }
}

// The spans' positions in id order, positions ascending among equal ids: sorted in place by
// insertion while few (the native sort's comparator and work copy were half the index's bytes).
function positionsById(spans: readonly SpanDigest[]): number[] {
  const n = spans.length;
  const out = new Array<number>(n);
  if (n > 64) {
    for (let i = 0; i < n; i++) out[i] = i;
    return out.sort((a, b) => {
      const x = spans[a]!.spanId;
      const y = spans[b]!.spanId;
      return x < y ? -1 : x > y ? 1 : a - b;
    });
  }
  for (let i = 0; i < n; i++) {
    const id = spans[i]!.spanId;
    let j = i - 1;
    for (; j >= 0 && spans[out[j]!]!.spanId > id; j--) out[j + 1] = out[j]!;
    out[j + 1] = i;
  }
  return out;
}
