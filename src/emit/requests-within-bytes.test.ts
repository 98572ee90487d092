import { describe, expect, it } from 'vitest';
import { requestsWithinBytes } from './requests-within-bytes.js';

/** An encoder of spans that are their own sizes in bytes, counting the spans it encodes. */
function sizedEncoder() {
  let encoded = 0;
  const encode = (spans: readonly number[]): Uint8Array => {
    encoded += spans.length;
    return new Uint8Array(spans.reduce((n, s) => n + s, 0));
  };
  return { encode, encoded: () => encoded };
}

describe('requestsWithinBytes', () => {
  it('encodes a request within the bound once, and does nothing more', () => {
    const { encode, encoded } = sizedEncoder();
    const requests = requestsWithinBytes([100, 200, 300], encode, 1000);
    expect(requests.map(r => [r.bytes.length, r.spans])).toEqual([[600, 3]]);
    expect(encoded()).toBe(3);
  });

  it('splits a request past the bound into requests within it, in order, each span once', () => {
    const { encode, encoded } = sizedEncoder();
    const spans = Array.from({ length: 1000 }, (_, i) => 90 + (i % 21)); // 90–110 bytes
    const requests = requestsWithinBytes(spans, encode, 10_000);
    for (const r of requests) expect(r.bytes.length).toBeLessThanOrEqual(10_000);
    expect(requests.reduce((n, r) => n + r.spans, 0)).toBe(1000);
    expect(requests.reduce((n, r) => n + r.bytes.length, 0)).toBe(spans.reduce((n, s) => n + s, 0));
    // The whole once, then each piece once: no piece split again.
    expect(encoded()).toBe(2000);
    expect(requests).toHaveLength(12); // 100,000 bytes, aimed at 9,000 a request
  });

  it('sends a span past the bound alone, whole', () => {
    const { encode } = sizedEncoder();
    const requests = requestsWithinBytes([10, 5000, 10], encode, 1000);
    expect(requests.map(r => r.bytes.length)).toEqual([10, 5000, 10]);
  });
});
