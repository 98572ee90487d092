import { describe, expect, it } from 'vitest';
import type { SpanDigest } from '../ingest/span-digest.js';
import { HeldTrace } from './trace-byte-buffer.js';

/** A held trace of spans with these ids (only the ids matter to `has`). */
function heldWith(ids: readonly string[]): HeldTrace {
  const held = new HeldTrace('svc', 0);
  held.spans = ids.map(spanId => ({ spanId }) as SpanDigest);
  return held;
}

describe('HeldTrace.has: a span id held already', () => {
  it('finds ids that share their last digit with others, and not ids that differ only there', () => {
    const ids = Array.from({ length: 20 }, (_, i) => `${i.toString(16).padStart(15, '0')}a`);
    const held = heldWith(ids);
    for (const id of ids) expect(held.has(id)).toBe(true);
    expect(held.has('00000000000000ab')).toBe(false);
    expect(held.has('000000000000000b')).toBe(false); // the first id but its last digit
    expect(held.has(ids[19]!, 19)).toBe(false); // only the first `upTo` are looked at
    expect(held.has(ids[18]!, 19)).toBe(true);
  });

  it('finds an empty id and ids of another length', () => {
    const held = heldWith(['', 'abc', '0123456789abcdef0123456789abcdef']);
    expect(held.has('')).toBe(true);
    expect(held.has('abc')).toBe(true);
    expect(held.has('0123456789abcdef0123456789abcdef')).toBe(true);
    expect(held.has('bc')).toBe(false);
    expect(heldWith(['abc']).has('')).toBe(false);
  });
});
