import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SpanDigest } from '../ingest/span-digest.js';
import { indexOfSpanId } from './index-of-span-id.js';

const withId = (spanId: string) => ({ spanId }) as SpanDigest;

describe('indexOfSpanId', () => {
  it('finds what findIndex finds among the first upTo spans (fuzzed)', () => {
    // Ids from a small alphabet, so that many share their last character (and their length)
    // without being equal; empty ids too, as some SDKs send.
    const id = fc.oneof(
      // An empty id and ids ending in NUL: both read 0 as their last character.
      fc.constantFrom('', '\u0000', 'a\u0000', '\u0000\u0000'),
      fc.stringMatching(/^[ab]{1,3}$/),
      fc.stringMatching(/^[0-9a-f]{16}$/),
    );
    fc.assert(
      fc.property(fc.array(id, { maxLength: 12 }), id, fc.nat(14), (ids, wanted, upTo) => {
        const spans = ids.map(withId);
        const bound = Math.min(upTo, spans.length);
        const expected = spans.slice(0, bound).findIndex(s => s.spanId === wanted);
        expect(indexOfSpanId(spans, wanted, bound)).toBe(expected);
      }),
      { numRuns: 2_000, seed: 75 },
    );
  });

  it('tells ids apart that differ only before their last character, and finds the first of twins', () => {
    const spans = ['00000000000000a1', '10000000000000a1', '10000000000000a1', ''].map(withId);
    // Built from parts: the same text as a different string, as a decoded id is.
    const decoded = ['1', '0'.repeat(13), 'a1'].join('');
    expect(indexOfSpanId(spans, decoded, spans.length)).toBe(1);
    expect(indexOfSpanId(spans, decoded, 1)).toBe(-1);
    expect(indexOfSpanId(spans, '', spans.length)).toBe(3);
    expect(indexOfSpanId(spans, '20000000000000a1', spans.length)).toBe(-1);
  });
});
