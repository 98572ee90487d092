import { describe, expect, it } from 'vitest';
import { field } from '../../test/helpers/protobuf-bytes.js';
import { decodeOtlpJson } from './decode-otlp-json.js';
import { decodeOtlpProtobuf } from './decode-otlp-protobuf.js';

/**
 * OTLP's `intValue` (int64) in either encoding. OTLP/JSON sends it as a decimal string (Python's
 * `MessageToJson`, the Collector) or a JSON number (the JS SDK); the Collector reads the string
 * with `strconv.ParseInt`. Requests written by hand here, one span each.
 */
const T = '5b8efff798038103d269b633813fc60c';
const S = 'eee19b7ec3c1b174';

function fromJson(intValue: unknown) {
  const out = decodeOtlpJson({
    resourceSpans: [
      {
        scopeSpans: [
          { spans: [{ traceId: T, spanId: S, attributes: [{ key: 'n', value: { intValue } }] }] },
        ],
      },
    ],
  });
  return out.spans.length
    ? { value: out.spans[0]!.attributes.n }
    : { rejected: out.rejected.length };
}

/** A varint of any 64-bit value: a negative one as its two's complement, as int64 is written. */
function varint64(n: bigint): Buffer {
  let u = BigInt.asUintN(64, n);
  const out: number[] = [];
  while (u > 0x7fn) {
    out.push(Number(u & 0x7fn) | 0x80);
    u >>= 7n;
  }
  out.push(Number(u));
  return Buffer.from(out);
}

function fromProtobuf(n: bigint) {
  const anyValue = Buffer.concat([Buffer.from([3 << 3]), varint64(n)]); // int_value, varint
  const keyValue = Buffer.concat([field(1, Buffer.from('n')), field(2, anyValue)]);
  const span = Buffer.concat([
    field(1, Buffer.from(T, 'hex')),
    field(2, Buffer.from(S, 'hex')),
    field(9, keyValue),
  ]);
  const bytes = field(1, field(2, field(2, span)));
  return decodeOtlpProtobuf(bytes).spans[0]!.attributes.n;
}

describe('intValue', () => {
  it.each<[unknown, number | string]>([
    ['12', 12],
    [12, 12],
    ['-12', -12],
    ['+12', 12],
    ['007', 7],
    ['-0', 0],
    [-0, 0],
    [String(2 ** 53 - 1), 2 ** 53 - 1],
    ['9007199254740993', '9007199254740993'],
    ['0009007199254740993', '9007199254740993'],
    ['9223372036854775807', '9223372036854775807'],
    ['-9223372036854775808', '-9223372036854775808'],
    [2 ** 60, '1152921504606846976'],
  ])('reads %j as %j', (given, read) => {
    expect(fromJson(given)).toEqual({ value: read });
  });

  it.each<unknown>([
    '',
    ' 12 ',
    '12 ',
    '1e3',
    '1.0',
    '0x10',
    '1_000',
    '9223372036854775808',
    '-9223372036854775809',
    '99999999999999999999',
    1e19,
    1e300,
    1.5,
    '0'.repeat(25) + '1',
    true,
  ])('rejects the span of %j', given => {
    expect(fromJson(given)).toEqual({ rejected: 1 });
  });

  it('rejects a megabyte of digits (refused by its length, not parsed)', () => {
    expect(fromJson('1'.repeat(1_000_000))).toEqual({ rejected: 1 });
  });

  it.each([
    0n,
    12n,
    -12n,
    2n ** 53n - 1n,
    2n ** 53n + 1n,
    -(2n ** 53n) - 1n,
    2n ** 63n - 1n,
    -(2n ** 63n),
  ])('reads %s the same from JSON (as a string) and from protobuf', n => {
    expect(fromJson(`000${n}`.replace(/^000-/, '-000'))).toEqual({ value: fromProtobuf(n) });
  });
});
