import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isSpanscoreError } from '../errors/spanscore-error.js';
import { decodeOtlpJson } from './decode-otlp-json.js';

const T = '5b8efff798038103d269b633813fc60c';
const S = 'eee19b7ec3c1b174';

const req = (span: Record<string, unknown>, extra: Record<string, unknown> = {}): unknown => ({
  resourceSpans: [
    {
      resource: { attributes: [{ key: 'service.name', value: { stringValue: 'svc' } }] },
      scopeSpans: [{ scope: { name: 'sc' }, spans: [span] }],
      ...extra,
    },
  ],
});

describe('decodeOtlpJson', () => {
  it('reads lowerCamelCase and snake_case keys the same way', () => {
    const camel = decodeOtlpJson(
      req({
        traceId: T,
        spanId: S,
        parentSpanId: 'aaaaaaaaaaaaaaaa',
        name: 'n',
        kind: 3,
        startTimeUnixNano: '1700000000000000001',
        endTimeUnixNano: 1700000000000,
        attributes: [{ key: 'k', value: { intValue: '7' } }],
        status: { code: 2, message: 'boom' },
      }),
    );
    const snake = decodeOtlpJson({
      resource_spans: [
        {
          resource: { attributes: [{ key: 'service.name', value: { string_value: 'svc' } }] },
          scope_spans: [
            {
              scope: { name: 'sc' },
              spans: [
                {
                  trace_id: T,
                  span_id: S,
                  parent_span_id: 'aaaaaaaaaaaaaaaa',
                  name: 'n',
                  kind: 'SPAN_KIND_CLIENT',
                  start_time_unix_nano: '1700000000000000001',
                  end_time_unix_nano: '1700000000000',
                  attributes: [{ key: 'k', value: { int_value: 7 } }],
                  status: { code: 'STATUS_CODE_ERROR', message: 'boom' },
                },
              ],
            },
          ],
        },
      ],
    });
    expect(snake).toEqual(camel);
    expect(camel.spans[0]).toMatchObject({
      kind: 3,
      statusCode: 2,
      statusMessage: 'boom',
      startTimeUnixNano: 1700000000000000001n,
      endTimeUnixNano: 1700000000000n,
      attributes: { k: 7 },
      serviceName: 'svc',
      scopeName: 'sc',
    });
  });

  it.each([
    ['SPAN_KIND_INTERNAL', 1],
    ['CLIENT', 3],
    ['server', 2],
    [5, 5],
    [undefined, 0],
  ])('accepts span kind %j', (kind, expected) => {
    expect(decodeOtlpJson(req({ traceId: T, spanId: S, kind })).spans[0]!.kind).toBe(expected);
  });

  it('lower-cases hex ids and accepts base64 ids', () => {
    const upper = decodeOtlpJson(req({ traceId: T.toUpperCase(), spanId: S.toUpperCase() }));
    expect(upper.spans[0]).toMatchObject({ traceId: T, spanId: S, parentSpanId: '' });
    const b64 = decodeOtlpJson(
      req({
        traceId: Buffer.from(T, 'hex').toString('base64'),
        spanId: Buffer.from(S, 'hex').toString('base64'),
      }),
    );
    expect(b64.spans[0]).toMatchObject({ traceId: T, spanId: S });
  });

  it('decodes every AnyValue form', () => {
    const attributes = [
      { key: 's', value: { stringValue: 'x' } },
      { key: 'b', value: { boolValue: false } },
      { key: 'i', value: { intValue: '-12' } },
      { key: 'huge', value: { intValue: '9223372036854775807' } },
      { key: 'd', value: { doubleValue: 1.5 } },
      { key: 'arr', value: { arrayValue: { values: [{ stringValue: 'a' }, { intValue: 1 }] } } },
      {
        key: 'kv',
        value: { kvlistValue: { values: [{ key: 'inner', value: { boolValue: true } }] } },
      },
      { key: 'bytes', value: { bytesValue: 'AQID' } },
      { key: 'empty', value: {} },
      { key: 'unknown-field', value: { futureValue: 1 } },
    ];
    expect(decodeOtlpJson(req({ traceId: T, spanId: S, attributes })).spans[0]!.attributes).toEqual(
      {
        s: 'x',
        b: false,
        i: -12,
        huge: '9223372036854775807',
        d: 1.5,
        arr: ['a', 1],
        kv: { inner: true },
        bytes: 'AQID',
        empty: null,
        'unknown-field': null,
      },
    );
  });

  it('reads a JSON number time past 2^53 as the integer it is', () => {
    const out = decodeOtlpJson({
      resourceSpans: [
        { scopeSpans: [{ spans: [{ traceId: T, spanId: S, startTimeUnixNano: 2 ** 63 }] }] },
      ],
    });
    expect(out.spans[0]!.startTimeUnixNano).toBe(2n ** 63n);
  });

  it('takes a time as a number and as text alike on each side of 2^64 - 1024, where JSON numbers round to 2^64', () => {
    const read = (time: string): bigint | string => {
      // The request as it arrives, text: JSON.parse is what turns a long number into a double.
      const text = `{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"${T}","spanId":"${S}","startTimeUnixNano":${time}}]}]}]}`;
      const out = decodeOtlpJson(JSON.parse(text));
      return out.spans[0]?.startTimeUnixNano ?? out.rejected[0]!.reason;
    };
    const boundaries = [
      '18446744073709550591', // 2^64 - 1025
      '18446744073709550592', // 2^64 - 1024
      '18446744073709551615', // 2^64 - 1
      '18446744073709551616', // 2^64
    ];
    const refused = /^expected an unsigned 64-bit integer below 2\^64 - 1024/;
    const asNumbers = boundaries.map(digits => read(digits));
    const asText = boundaries.map(digits => read(`"${digits}"`));
    // The two forms agree: read (a bigint) or refused (the reason) alike, at each boundary.
    expect(asText.map(r => typeof r)).toEqual(asNumbers.map(r => typeof r));
    // 2^64 - 1025 is read, as text exactly and as a number as the double nearest it
    // (2^64 - 2048); from 2^64 - 1024 on, both forms are refused.
    expect(asText[0]).toBe(2n ** 64n - 1025n);
    expect(asNumbers[0]).toBe(2n ** 64n - 2048n);
    for (const form of [asNumbers, asText])
      for (const refusal of form.slice(1)) expect(refusal).toMatch(refused);
  });

  it.each([
    [
      { traceId: 'xyz', spanId: S },
      'resourceSpans[0].scopeSpans[0].spans[1].traceId',
      /expected 32 hex characters/,
    ],
    [
      { traceId: '0'.repeat(32), spanId: S },
      'resourceSpans[0].scopeSpans[0].spans[1].traceId',
      /all zeros/,
    ],
    [{ spanId: S }, 'resourceSpans[0].scopeSpans[0].spans[1].traceId', /is missing/],
    [
      { traceId: T, spanId: S, startTimeUnixNano: '-1' },
      'resourceSpans[0].scopeSpans[0].spans[1].startTimeUnixNano',
      /unsigned 64-bit/,
    ],
    // As JSON numbers past 2^64 - 1 (2^64 itself, and 1e300): refused as their text is, not
    // carried on as 65- and 997-bit times that no fixed64 holds.
    [
      { traceId: T, spanId: S, startTimeUnixNano: 18446744073709551616 },
      'resourceSpans[0].scopeSpans[0].spans[1].startTimeUnixNano',
      /unsigned 64-bit/,
    ],
    [
      { traceId: T, spanId: S, endTimeUnixNano: 1e300 },
      'resourceSpans[0].scopeSpans[0].spans[1].endTimeUnixNano',
      /unsigned 64-bit/,
    ],
    [
      { traceId: T, spanId: S, kind: 'SIDEWAYS' },
      'resourceSpans[0].scopeSpans[0].spans[1].kind',
      /expected one of/,
    ],
    [
      { traceId: T, spanId: S, attributes: {} },
      'resourceSpans[0].scopeSpans[0].spans[1].attributes',
      /expected an array/,
    ],
    [
      { traceId: T, spanId: S, attributes: [{ key: 'k', value: { intValue: 'x' } }] },
      'resourceSpans[0].scopeSpans[0].spans[1].attributes[0].value',
      /intValue/,
    ],
  ])('rejects only the bad span %#, naming the field', (bad, path, reason) => {
    const good = { traceId: T, spanId: S, name: 'good' };
    const out = decodeOtlpJson({ resourceSpans: [{ scopeSpans: [{ spans: [good, bad] }] }] });
    expect(out.spans.map(s => s.name)).toEqual(['good']);
    expect(out.rejected).toHaveLength(1);
    expect(out.rejected[0]!.path).toBe(path);
    expect(out.rejected[0]!.reason).toMatch(reason);
  });

  it('refuses attribute values nested deeper than the limit instead of recursing', () => {
    let value: Record<string, unknown> = { stringValue: 'leaf' };
    for (let i = 0; i < 200; i++) value = { arrayValue: { values: [value] } };
    const out = decodeOtlpJson(
      req({ traceId: T, spanId: S, attributes: [{ key: 'deep', value }] }),
    );
    expect(out.spans).toEqual([]);
    expect(out.rejected[0]!.reason).toMatch(/nested deeper than 32/);
  });

  it.each([
    [null],
    ['text'],
    [[1, 2]],
    [{ resourceSpans: 'nope' }],
    [{ resourceSpans: [{ scopeSpans: {} }] }],
  ])('throws SS_TRACE_INPUT_INVALID for a request that is not one: %j', input => {
    let error: unknown;
    try {
      decodeOtlpJson(input);
    } catch (e) {
      error = e;
    }
    expect(isSpanscoreError(error) && error.code).toBe('SS_TRACE_INPUT_INVALID');
  });

  it('treats an empty request as valid and empty', () => {
    expect(decodeOtlpJson({})).toEqual({ spans: [], rejected: [], rejectedCount: 0 });
  });

  it('fuzz: any JSON value either decodes or throws SS_TRACE_INPUT_INVALID', () => {
    const spanish = fc.record(
      {
        traceId: fc.oneof(fc.constant(T), fc.string()),
        spanId: fc.oneof(fc.constant(S), fc.string()),
        kind: fc.anything({ maxDepth: 3, maxKeys: 4 }),
        attributes: fc.anything({ maxDepth: 3, maxKeys: 4 }),
        events: fc.anything({ maxDepth: 3, maxKeys: 4 }),
        status: fc.anything({ maxDepth: 3, maxKeys: 4 }),
        startTimeUnixNano: fc.anything({ maxDepth: 3, maxKeys: 4 }),
      },
      { requiredKeys: [] },
    );
    // Lists of at most 4 at each level: a request of up to 64 spans. Unbounded, fast-check's
    // default lengths built requests of hundreds of spans: the 1,500 runs took 3.6 s alone, 19 s
    // in a full test pass, past the 30 s timeout on a loaded host, for no more shapes (0.4 s now).
    const request = fc.oneof(
      fc.anything({ maxDepth: 3, maxKeys: 4 }),
      fc.record({
        resourceSpans: fc.array(
          fc.record({
            scopeSpans: fc.array(fc.record({ spans: fc.array(spanish, { maxLength: 4 }) }), {
              maxLength: 4,
            }),
          }),
          { maxLength: 4 },
        ),
      }),
    );
    fc.assert(
      fc.property(request, input => {
        try {
          const out = decodeOtlpJson(input);
          expect(out.spans.length + out.rejected.length).toBeGreaterThanOrEqual(0);
        } catch (error) {
          if (!isSpanscoreError(error)) throw error;
        }
      }),
      { numRuns: 1500 },
    );
  });
});

describe('attribute keys from untrusted input', () => {
  it('keeps __proto__ and constructor as ordinary attributes, never as a prototype', () => {
    const { spans } = decodeOtlpJson({
      resourceSpans: [
        {
          scopeSpans: [
            {
              spans: [
                {
                  traceId: '0af7651916cd43dd8448eb211c80319c',
                  spanId: 'b7ad6b7169203331',
                  name: 'x',
                  startTimeUnixNano: '1',
                  endTimeUnixNano: '2',
                  attributes: [
                    { key: '__proto__', value: { stringValue: 'polluted' } },
                    { key: 'constructor', value: { stringValue: 'c' } },
                  ],
                },
              ],
            },
          ],
        },
      ],
    });
    const attributes = spans[0]!.attributes;
    expect(Object.keys(attributes)).toEqual(['__proto__', 'constructor']);
    expect(attributes['__proto__']).toBe('polluted');
    // Object.prototype is not on the chain: no key read back can reach it.
    expect(attributes instanceof Object).toBe(false);
    expect(Object.getPrototypeOf(Object.getPrototypeOf(attributes))).toBeNull();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
