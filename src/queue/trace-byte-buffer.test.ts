import { describe, expect, it } from 'vitest';
import { otlpRequest, spanId, traceId } from '../../test/helpers/otlp-json-builder.js';
import { decodeOtlpJson } from '../ingest/decode-otlp-json.js';
import type { SpanDigest } from '../ingest/span-digest.js';
import { HeldTrace, TraceByteBuffer } from './trace-byte-buffer.js';

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

describe('TraceByteBuffer.add: a span id sent again', () => {
  const request = (name: string) =>
    decodeOtlpJson(
      otlpRequest([
        {
          traceId: traceId(7),
          spanId: spanId(7, 2),
          parentSpanId: spanId(7, 1),
          name,
          startMs: 0,
          endMs: 1,
        },
      ]),
    ).spans;

  it('keeps the copy of the earlier request, as the bullmq driver does', () => {
    const buffer = new TraceByteBuffer();
    const held = buffer.open(traceId(7), 'svc', 0);
    expect(buffer.add(held, request('first copy'), 0, 100)).toBe(0);
    expect(buffer.add(held, request('second copy'), 1, 100)).toBe(0);
    expect(held.spans.map(s => s.name)).toEqual(['first copy']);
    expect(held.lastSeenMs).toBe(1);
  });
});
