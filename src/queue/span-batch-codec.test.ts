import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readTraceFiles } from '../ingest/read-trace-files.js';
import type { AttributeValue, SpanDigest } from '../ingest/span-digest.js';
import { decodeSpanBatch, encodeSpanBatch } from './span-batch-codec.js';
import { encodeSpanDigest } from './span-digest-codec.js';

const hex = (n: number) => fc.stringMatching(new RegExp(`^[0-9a-f]{${n}}$`));
const value: fc.Arbitrary<AttributeValue> = fc.letrec<{ v: AttributeValue }>(tie => ({
  v: fc.oneof(
    { depthSize: 'small' },
    fc.string({ unit: 'binary', maxLength: 60 }),
    fc.double(),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('v'), { maxLength: 4 }),
    fc.dictionary(fc.string({ maxLength: 12 }), tie('v'), { maxKeys: 4 }),
  ),
})).v;
const attributes = fc.dictionary(fc.string({ unit: 'binary', maxLength: 50 }), value, {
  maxKeys: 8,
});
const time = fc.bigInt({ min: 0n, max: 2n ** 64n - 1n });
const span: fc.Arbitrary<SpanDigest> = fc.record({
  traceId: hex(32),
  spanId: hex(16),
  parentSpanId: fc.oneof(fc.constant(''), hex(16)),
  name: fc.string({ unit: 'binary', maxLength: 200 }),
  kind: fc.constantFrom(0, 1, 2, 3, 4, 5),
  startTimeUnixNano: time,
  endTimeUnixNano: time,
  attributes,
  events: fc.array(
    fc.record({ name: fc.string({ maxLength: 30 }), timeUnixNano: time, attributes }),
    { maxLength: 3 },
  ),
  statusCode: fc.constantFrom(0, 1, 2),
  statusMessage: fc.string({ maxLength: 80 }),
  serviceName: fc.string({ maxLength: 50 }),
  scopeName: fc.string({ maxLength: 50 }),
});

describe('span batch codec', () => {
  it('round-trips every fixture span exactly, in one batch and one by one', async () => {
    const { spans } = await readTraceFiles([
      new URL('../../test/fixtures/otlp/', import.meta.url).pathname,
    ]);
    expect(spans.length).toBeGreaterThan(50);
    expect(decodeSpanBatch(encodeSpanBatch(spans))).toEqual(spans);
    for (const s of spans) expect(decodeSpanBatch(encodeSpanBatch([s]))).toEqual([s]);
    const max = { ...spans[0]!, startTimeUnixNano: 2n ** 64n - 1n };
    expect(decodeSpanBatch(encodeSpanBatch([max]))[0]!.startTimeUnixNano).toBe(2n ** 64n - 1n);
  });

  it('round-trips any span: unicode, long strings, nested values, -0, NaN, every 64-bit time', () => {
    fc.assert(
      fc.property(fc.array(span, { maxLength: 5 }), spans => {
        const decoded = decodeSpanBatch(encodeSpanBatch(spans));
        expect(decoded).toEqual(spans);
        // Object.prototype is not on the chain: no key read back from storage can reach it.
        for (const s of decoded) expect(s.attributes instanceof Object).toBe(false);
      }),
      { numRuns: 300 },
    );
  });

  it('keeps __proto__ as an ordinary attribute key', () => {
    const attributes = Object.create(null) as Record<string, AttributeValue>;
    attributes['__proto__'] = { polluted: true };
    const [s] = fc.sample(span, { seed: 1, numRuns: 1 });
    const decoded = decodeSpanBatch(encodeSpanBatch([{ ...s!, attributes }]))[0]!;
    expect(Object.keys(decoded.attributes)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('reads a JSON digest left in Redis by the previous codec', () => {
    const [s] = fc.sample(span, { seed: 2, numRuns: 1 });
    expect(decodeSpanBatch(Buffer.from(encodeSpanDigest(s!)))).toEqual([s]);
  });

  it('rejects truncated, padded and foreign bytes with an error, never a wrong span', () => {
    const [s] = fc.sample(span, { seed: 3, numRuns: 1 });
    const good = encodeSpanBatch([s!]);
    for (let cut = 1; cut < good.length; cut++)
      expect(() => decodeSpanBatch(good.subarray(0, cut))).toThrow(/span batch/);
    expect(() => decodeSpanBatch(Buffer.concat([good, Buffer.from([0])]))).toThrow(/left over/);
    expect(() => decodeSpanBatch(Buffer.from([9, 0]))).toThrow(/unknown version 9/);
  });
});
