import { describe, isObject } from './json-field.js';
import { JsonItemReject } from './json-item-reject.js';
import type { AttributeValue, Attributes } from './span-digest.js';
import { emptyAttributes, setAttribute } from './span-digest.js';

/** Attribute values nest at most this deep; deeper input is refused rather than recursed into. */
export const MAX_ANY_VALUE_DEPTH = 32;

/**
 * An OTLP/JSON `KeyValue` list (a span's, an event's, a log record's attributes) as attributes;
 * absent or `null` is none. Throws {@link JsonItemReject} with the path of the bad entry (under
 * `path`) for anything that is not a list of `{ key, value }` with a valid `AnyValue`.
 */
export function decodeAttributes(list: unknown, path: string): Attributes {
  const out = emptyAttributes();
  if (list === undefined || list === null) return out;
  if (!Array.isArray(list))
    throw new JsonItemReject(path, `expected an array, got ${describe(list)}`);
  list.forEach((kv: unknown, i) => {
    if (!isObject(kv) || typeof kv.key !== 'string') {
      throw new JsonItemReject(`${path}[${i}]`, 'expected a KeyValue with a string "key"');
    }
    setAttribute(out, kv.key, decodeAnyValue(kv.value, `${path}[${i}].value`, 0));
  });
  return out;
}

/**
 * One OTLP/JSON `AnyValue`, in either key spelling (`stringValue`, `string_value`): `null` when
 * absent or empty, a 64-bit integer beyond 2^53 as its exact digits, bytes as their base64 text,
 * arrays and kvlists recursed into up to {@link MAX_ANY_VALUE_DEPTH} (`depth` is the current
 * level). Unknown fields are ignored, as OTLP/JSON requires; a bad value throws
 * {@link JsonItemReject} at `path`.
 */
export function decodeAnyValue(value: unknown, path: string, depth: number): AttributeValue {
  if (depth > MAX_ANY_VALUE_DEPTH) {
    throw new JsonItemReject(
      path,
      `attribute value nested deeper than ${MAX_ANY_VALUE_DEPTH} levels`,
    );
  }
  if (value === undefined || value === null) return null;
  if (!isObject(value))
    throw new JsonItemReject(path, `expected an AnyValue object, got ${describe(value)}`);
  for (const key in value) {
    const v = value[key];
    switch (key) {
      case 'stringValue':
      case 'string_value':
        if (typeof v !== 'string') throw new JsonItemReject(path, `${key} must be a string`);
        return v;
      case 'boolValue':
      case 'bool_value':
        if (typeof v !== 'boolean') throw new JsonItemReject(path, `${key} must be a boolean`);
        return v;
      case 'intValue':
      case 'int_value':
        return decodeInt(v, path);
      case 'doubleValue':
      case 'double_value':
        return decodeDouble(v, path);
      case 'arrayValue':
      case 'array_value': {
        const values = isObject(v) ? v.values : undefined;
        if (values === undefined) return [];
        if (!Array.isArray(values))
          throw new JsonItemReject(path, 'arrayValue.values must be an array');
        return values.map((item: unknown, i) =>
          decodeAnyValue(item, `${path}.arrayValue.values[${i}]`, depth + 1),
        );
      }
      case 'kvlistValue':
      case 'kvlist_value': {
        const values = isObject(v) ? v.values : undefined;
        const out: Record<string, AttributeValue> = {};
        if (values === undefined) return out;
        if (!Array.isArray(values))
          throw new JsonItemReject(path, 'kvlistValue.values must be an array');
        values.forEach((kv: unknown, i) => {
          if (!isObject(kv) || typeof kv.key !== 'string') {
            throw new JsonItemReject(
              `${path}.kvlistValue.values[${i}]`,
              'expected a KeyValue with a string "key"',
            );
          }
          setAttribute(
            out,
            kv.key,
            decodeAnyValue(kv.value, `${path}.kvlistValue.values[${i}].value`, depth + 1),
          );
        });
        return out;
      }
      case 'bytesValue':
      case 'bytes_value':
        if (typeof v !== 'string') throw new JsonItemReject(path, `${key} must be a base64 string`);
        return v;
      default:
      // Unknown fields are ignored, as OTLP/JSON requires.
    }
  }
  return null;
}

/** The int64 range OTLP's `intValue` holds, as BigInts. */
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/**
 * Longest `intValue` string read: a sign and 19 digits hold every int64, with room for a few
 * leading zeros. Longer text is refused before it is parsed, so a hostile value of megabytes of
 * digits costs one length check.
 */
const MAX_INT_CHARS = 24;

/**
 * An OTLP/JSON `intValue` (int64: a JSON number, or its decimal string as OTLP/JSON encodes it)
 * as the protobuf decoder gives it (`ProtobufReader.int64`): a number when it is a safe integer
 * (`-0` as 0), else its canonical decimal digits (no leading zeros), so a span reads the same
 * whichever encoding carried it. Accepted as the Collector accepts (`strconv.ParseInt`, base 10):
 * an optional sign and decimal digits within the int64 range; refused (a {@link JsonItemReject}
 * at `path`): empty text, whitespace, exponents (`1e3`), hex (`0x10`), fractions, values past
 * int64, and text longer than {@link MAX_INT_CHARS}. A JSON number past 2^53 has lost its exact
 * value in `JSON.parse` already; it is kept as the digits of the value parsed.
 */
function decodeInt(value: unknown, path: string): number | string {
  if (typeof value === 'number' && Number.isInteger(value)) {
    if (Number.isSafeInteger(value)) return value === 0 ? 0 : value;
    const n = BigInt(value);
    if (n >= INT64_MIN && n <= INT64_MAX) return n.toString();
  } else if (
    typeof value === 'string' &&
    value.length <= MAX_INT_CHARS &&
    /^[+-]?\d+$/.test(value)
  ) {
    const n = Number(value);
    if (Number.isSafeInteger(n)) return n === 0 ? 0 : n;
    const big = BigInt(value);
    if (big >= INT64_MIN && big <= INT64_MAX) return big.toString();
  }
  throw new JsonItemReject(
    path,
    `intValue must be a 64-bit integer, as a number or a string of decimal digits, got ${describe(value)}`,
  );
}

function decodeDouble(value: unknown, path: string): number | string {
  if (typeof value === 'number') return value;
  if (value === 'NaN' || value === 'Infinity' || value === '-Infinity') return value;
  if (typeof value === 'string' && value.trim() !== '' && !Number.isNaN(Number(value)))
    return Number(value);
  throw new JsonItemReject(path, `doubleValue must be a number, got ${describe(value)}`);
}
