import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SpanDigest } from '../ingest/span-digest.js';
import { SpanIndex } from './span-index.js';

const span = (spanId: string, n: number): SpanDigest => ({ spanId, name: `s${n}` }) as SpanDigest;

describe('SpanIndex', () => {
  it('finds the first span of each id in span order, at any size', () => {
    // Few distinct ids against up to 120 spans: repeats, and both sorts (insertion, native).
    // Ids that share their first character (`id…`) and ids that differ there (hex digits, an
    // empty id, a first NUL or a first unit past ASCII), as the comparison is decided by either.
    const someId = fc.oneof(
      fc.integer({ min: 0, max: 90 }).map(n => `id${n}`),
      fc.stringMatching(/^[0-9a-f]{1,3}$/),
      fc.constantFrom('', '\u0000', '\u0000a', '\u00e9x', '\ud83d\ude00', 'Z'),
    );
    fc.assert(
      fc.property(
        fc.array(someId, { maxLength: 120 }),
        fc.array(someId, { maxLength: 8 }),
        (list, asked) => {
          const spans = list.map(span);
          const index = new SpanIndex(spans);
          for (const id of [...list, ...asked])
            expect(index.get(id)).toBe(spans.find(s => s.spanId === id));
        },
      ),
      { numRuns: 500, seed: 75 },
    );
    expect(new SpanIndex([]).get('')).toBeUndefined();
  });

  it.each([3, 40])('counts the first copy of a span id, not a later one (%i spans)', n => {
    const spans = Array.from({ length: n }, (_, i) => span(`id${i}`, i));
    const again = span('id1', n);
    spans.push(again);
    const index = new SpanIndex(spans);
    expect(index.isCounted(spans[1]!)).toBe(true);
    expect(index.isCounted(again)).toBe(false);
  });
});
