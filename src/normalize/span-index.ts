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
    this.#map ??= new Map(this.spans.map(s => [s.spanId, s]));
    return this.#map.get(spanId);
  }
}
