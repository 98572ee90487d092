import type { SpanDigest } from '../ingest/span-digest.js';

/**
 * One trace's spans by id. Agent traces are small: up to 16 spans a scan beats building a map,
 * which is built only for larger traces, on first use.
 */
export class SpanIndex {
  #map: Map<string, SpanDigest> | undefined;

  constructor(private readonly spans: readonly SpanDigest[]) {}

  get(spanId: string): SpanDigest | undefined {
    if (this.spans.length <= 16) {
      for (const span of this.spans) if (span.spanId === spanId) return span;
      return undefined;
    }
    let map = this.#map;
    if (!map) {
      // Filled in a loop: a map from pairs allocated a pair per span and an array of them.
      map = this.#map = new Map<string, SpanDigest>();
      for (const span of this.spans) map.set(span.spanId, span);
    }
    return map.get(spanId);
  }
}
