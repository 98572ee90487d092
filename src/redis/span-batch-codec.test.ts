import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readTraceFiles } from '../ingest/read-trace-files.js';
import type { AttributeValue, SpanDigest } from '../ingest/span-digest.js';
import { WireSpanDigest } from '../ingest/wire-span-digest.js';
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
  serviceVersion: fc.string({ maxLength: 20 }),
  deploymentEnvironment: fc.string({ maxLength: 20 }),
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

  it('reads a version 1 batch left in Redis by the previous release', () => {
    // Written by encodeSpanBatch as of commit dcb35cb (format version 1), from the span below.
    const v1 = Buffer.from(
      'AQEgMGFmNzY1MTkxNmNkNDNkZDg0NDhlYjIxMWM4MDMxOWMQYjdhZDZiNzE2OTIwMzMzMQAYZXhlY3V0ZV90b29sIGdldF93ZWF0aGVyBGJvb20Dc3ZjBXNjb3BlAQIAACo2/pyXF///////////CBBnZW5fYWkudG9vbC5uYW1lAQtnZXRfd2VhdGhlcgFuAgAAAAAAAOC/AWkCAAAAAAAARUACb2sDAm5vBANuaWwABGxpc3QFAwEBYQIAAAAAAADwPwUBAwNvYmoGAgRjaXR5AQdaw7xyaWNoBm5lc3RlZAYBAWsBAXYBE2dlbl9haS50b29sLm1lc3NhZ2UFAAAAAAAAAAEHY29udGVudAEHeyJhIjoxfQ==',
      'base64',
    );
    expect(decodeSpanBatch(v1)).toEqual([
      {
        traceId: '0af7651916cd43dd8448eb211c80319c',
        spanId: 'b7ad6b7169203331',
        parentSpanId: '',
        name: 'execute_tool get_weather',
        kind: 1,
        startTimeUnixNano: 1700000000000000000n,
        endTimeUnixNano: 18446744073709551615n,
        attributes: {
          'gen_ai.tool.name': 'get_weather',
          n: -0.5,
          i: 42,
          ok: true,
          no: false,
          nil: null,
          list: ['a', 1, [true]],
          obj: { city: 'Zürich', nested: { k: 'v' } },
        },
        events: [
          { name: 'gen_ai.tool.message', timeUnixNano: 5n, attributes: { content: '{"a":1}' } },
        ],
        statusCode: 2,
        statusMessage: 'boom',
        serviceName: 'svc',
        scopeName: 'scope',
        serviceVersion: '',
        deploymentEnvironment: '',
      },
    ]);
  });

  it("passes a decoded request's unread attributes on as they came, decoded once when read", async () => {
    const { spans } = await readTraceFiles([
      new URL('../../test/fixtures/otlp/', import.meta.url).pathname,
    ]);
    const unread = spans.filter(
      (s): s is WireSpanDigest => s instanceof WireSpanDigest && !!s.attributeRecords(),
    );
    expect(unread.length).toBeGreaterThan(10);
    const batch = encodeSpanBatch(unread);
    // The records are in the batch byte for byte, and the originals were not decoded to write it.
    for (const s of unread) {
      const r = s.attributeRecords()!;
      expect(batch.includes(r.buf.subarray(r.start, r.end))).toBe(true);
    }
    const back = decodeSpanBatch(batch);
    expect(back.every(s => s instanceof WireSpanDigest && s.attributeRecords())).toBe(true);
    const first = back[0]!.attributes;
    expect(back[0]!.attributes).toBe(first);
    expect((back[0] as WireSpanDigest).attributeRecords()).toBeUndefined();
    expect(back).toEqual(unread);
  });

  it('reads copied records with other span fields between them, skipping those', () => {
    // Span.attributes records with a Span.name field (5) between them, as a range copied from a
    // request whose attributes were not contiguous.
    const kv = (k: string, v: string) => {
      const key = [0x0a, k.length, ...Buffer.from(k)];
      const any = [0x0a, v.length, ...Buffer.from(v)];
      const body = [...key, 0x12, any.length, ...any];
      return [0x4a, body.length, ...body];
    };
    const records = Buffer.from([...kv('a', 'x'), 0x2a, 1, 0x41, ...kv('b', 'y')]);
    const [s] = fc.sample(span, { seed: 4, numRuns: 1 });
    const wire = new WireSpanDigest(
      s!.traceId,
      s!.spanId,
      s!.parentSpanId,
      s!.name,
      s!.kind,
      s!.startTimeUnixNano,
      s!.endTimeUnixNano,
      records,
      0,
      records.length,
      [],
      s!.statusCode,
      s!.statusMessage,
      s!.serviceName,
      s!.scopeName,
    );
    const [back] = decodeSpanBatch(encodeSpanBatch([wire]));
    expect({ ...back!.attributes }).toEqual({ a: 'x', b: 'y' });
  });

  it('refuses attribute records it cannot read back, naming where', () => {
    const [s] = fc.sample(span, { seed: 5, numRuns: 1 });
    const good = encodeSpanBatch([{ ...s!, attributes: { k: 'v' }, events: [] }]);
    // The attributes field ends the span but for the event count (the last byte): its records
    // are the bytes before that, after their length. Cut the string's length to break them.
    const bad = Buffer.from(good);
    const at = bad.lastIndexOf(Buffer.from('v')) - 1;
    bad[at] = 0x7f;
    expect(() => decodeSpanBatch(bad)).toThrow(/span batch: bad attributes at byte \d+/);
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
