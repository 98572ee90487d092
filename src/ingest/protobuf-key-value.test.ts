import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  readAttributeRecords,
  SPAN_ATTRIBUTES_FIELD,
  skippedUnread,
} from './protobuf-key-value.js';
import { isUnreadKey } from './unread-attributes.js';
import { field, varint } from '../../test/helpers/protobuf-bytes.js';

/** One field of a `KeyValue` record, as a test writes it. */
type Field = { key: string } | { value: string | number | boolean } | { other: number }; // an unknown varint field (field 3)

/** An `AnyValue`'s bytes: a string (field 1), an int (field 3) or a bool (field 2). */
function anyValue(value: string | number | boolean): Buffer {
  if (typeof value === 'string') return field(1, Buffer.from(value, 'utf8'));
  if (typeof value === 'boolean')
    return Buffer.concat([varint((2 << 3) | 0), varint(value ? 1 : 0)]);
  return Buffer.concat([varint((3 << 3) | 0), varint(value)]);
}

/** A `KeyValue` record (field 9 of a span) of these fields, in this order. */
function record(fields: readonly Field[]): Buffer {
  const body = fields.map(f =>
    'key' in f
      ? field(1, Buffer.from(f.key, 'utf8'))
      : 'value' in f
        ? field(2, anyValue(f.value))
        : Buffer.concat([varint((3 << 3) | 0), varint(f.other)]),
  );
  return field(SPAN_ATTRIBUTES_FIELD, Buffer.concat(body));
}

const KEYS = ['a', 'gen_ai.tool.name', '__proto__', '', 'http.method', 'db.system', 'httpx', 'é.x'];

describe('readAttributeRecords with the unread families left out', () => {
  it('reads what a whole read reads but the keys in unread families, for records in any order', () => {
    const field = fc.oneof(
      fc.record({ key: fc.constantFrom(...KEYS) }),
      fc.record({ value: fc.oneof(fc.string(), fc.nat(1000), fc.boolean()) }),
      fc.record({ other: fc.nat(300) }),
    );
    // Mostly the usual record (its key, then its value), and any other order, repeats and extras.
    const usual = fc
      .tuple(fc.constantFrom(...KEYS), fc.oneof(fc.string(), fc.nat(1000), fc.boolean()))
      .map(([key, value]): Field[] => [{ key }, { value }]);
    const records = fc.array(fc.oneof(usual, fc.array(field, { maxLength: 4 })), {
      maxLength: 8,
    });
    fc.assert(
      fc.property(records, recs => {
        const buf = Buffer.concat(recs.map(record));
        const whole = readAttributeRecords(buf, 0, buf.length, SPAN_ATTRIBUTES_FIELD);
        const read = readAttributeRecords(buf, 0, buf.length, SPAN_ATTRIBUTES_FIELD, true);
        const unread = Object.keys(whole).filter(isUnreadKey);
        expect(skippedUnread()).toBe(unread.length > 0);
        expect(Object.entries(read)).toEqual(
          Object.entries(whole).filter(([key]) => !isUnreadKey(key)),
        );
      }),
      { numRuns: 3000, seed: 74 },
    );
  });
});
