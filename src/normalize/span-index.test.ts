import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SpanDigest } from '../ingest/span-digest.js';
import { SpanIndex } from './span-index.js';

const span = (spanId: string, n: number): SpanDigest => ({ spanId, name: `s${n}` }) as SpanDigest;

describe('SpanIndex', () => {
  it('finds each id as a Map filled in span order does past 16 spans, and the first span of an id up to 16', () => {
    // Few distinct ids against up to 120 spans: repeats, and both sorts (insertion, native).
    const ids = fc.array(
      fc.integer({ min: 0, max: 90 }).map(n => `id${n}`),
      { maxLength: 120 },
    );
    fc.assert(
      fc.property(ids, list => {
        const spans = list.map(span);
        const index = new SpanIndex(spans);
        const byMap = new Map(spans.map(s => [s.spanId, s]));
        for (let n = 0; n <= 91; n++) {
          const id = `id${n}`;
          const want = spans.length <= 16 ? spans.find(s => s.spanId === id) : byMap.get(id);
          expect(index.get(id)).toBe(want);
        }
        expect(index.get('')).toBeUndefined();
      }),
      { numRuns: 300 },
    );
  });
});
