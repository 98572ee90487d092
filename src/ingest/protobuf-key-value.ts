import { MAX_ANY_VALUE_DEPTH } from './decode-json-attributes.js';
import { ProtobufReader, SpanReject } from './protobuf-reader.js';
import { KEPT_VIEW_BYTES, releaseBufferView } from './buffer-view.js';
import { recurringKeyUnlessUnread, recurringString } from './recurring-string.js';
import { isUnreadKeyBytes } from './unread-attributes.js';
import type { AttributeValue, Attributes } from './span-digest.js';
import { emptyAttributes, setAttribute } from './span-digest.js';
import { WIRE } from '../protobuf/wire-type.js';

// Wire types, by the names the code reads them with.
const { VARINT, FIXED64, LEN } = WIRE;

/** The tag bytes of a `KeyValue`'s key (field 1) and value (field 2), both length-delimited. */
const KEY_TAG = (1 << 3) | LEN;
const VALUE_TAG = (2 << 3) | LEN;

/** The field number of `Span.attributes`, which the span batch codec uses for its records too. */
export const SPAN_ATTRIBUTES_FIELD = 9;

/**
 * OTLP `KeyValue` and `AnyValue` (`opentelemetry/proto/common/v1/common.proto`) on the wire: read
 * into attribute values, or walked to check them without building anything.
 *
 * {@link checkKeyValue} throws where {@link readKeyValue} would (a framing error as an `Error`, a
 * value nested deeper than `MAX_ANY_VALUE_DEPTH` as {@link SpanReject}), so bytes that passed the
 * check read back later without an error. It also refuses, as {@link SpanReject}, a field that runs
 * past the end of the record or value holding it, which a read in place would take from the bytes
 * after it: read again where the records were copied alone (`WireSpanDigest.moveRecords`), the
 * same bytes would read otherwise or throw. That is what lets a decoder keep a span's attributes in
 * wire form ({@link readAttributeRecords} on first use) and still reject bad input when it arrives.
 */
export function readKeyValue(
  reader: ProtobufReader,
  end: number,
  depth: number,
): [string, AttributeValue] {
  readKeyValueFields(reader, end, depth);
  return [readKey, readValue];
}

/**
 * Reads the length-delimited `KeyValue` at the reader's position into `attributes` (an attribute
 * named `__proto__` as an own key), leaving the reader after it. As {@link readKeyValue}, without
 * the pair it returns (a 64-byte array per attribute, on the hot path).
 */
export function readKeyValueInto(
  reader: ProtobufReader,
  attributes: Record<string, AttributeValue>,
  depth: number,
): void {
  const kvEnd = reader.lenEnd();
  readKeyValueFields(reader, kvEnd, depth);
  setAttribute(attributes, readKey, readValue);
  reader.pos = kvEnd;
}

/** What the last {@link readKeyValueFields} read (set once it has read the whole record). */
let readKey = '';
let readValue: AttributeValue = null;

/**
 * The one walk of a `KeyValue`'s fields up to `end`, for both readers above: its key and value
 * (the last of each on the wire; `''` and `null` when absent) go to {@link readKey} and
 * {@link readValue}, set after the value is read, so a nested `kvlistValue` read on the way (which
 * walks its own records here) leaves them to the record that holds it.
 */
function readKeyValueFields(reader: ProtobufReader, end: number, depth: number): void {
  let key = '';
  let value: AttributeValue = null;
  while (reader.pos < end) {
    const tag = reader.varint32();
    if (tag === KEY_TAG) key = reader.recurring();
    else if (tag === VALUE_TAG) {
      const vEnd = reader.lenEnd();
      value = readAnyValue(reader, vEnd, depth);
      reader.pos = vEnd;
    } else reader.skip(tag);
  }
  endsAt(reader, end);
  readKey = key;
  readValue = value;
}

/** Checks one `KeyValue` as {@link readKeyValue} would read it, building nothing. */
export function checkKeyValue(reader: ProtobufReader, end: number, depth: number): void {
  checkRecords(reader, end, 2, checkAnyValue, depth);
}

/**
 * Checks each length-delimited record of field `field` from the reader's position to `end` with
 * `check`, at `depth`, and skips the other fields' records: the one walk of the check, for a
 * `KeyValue`'s value, the attribute records of a message, an array's values and a list's pairs.
 */
function checkRecords(
  reader: ProtobufReader,
  end: number,
  field: number,
  check: (reader: ProtobufReader, end: number, depth: number) => void,
  depth: number,
): void {
  const wanted = (field << 3) | LEN;
  while (reader.pos < end) {
    const tag = reader.varint32();
    if (tag === wanted) {
      reader.item();
      const recordEnd = reader.lenEnd();
      check(reader, recordEnd, depth);
      reader.pos = recordEnd;
    } else reader.skip(tag);
  }
  endsAt(reader, end);
}

/** `ProtobufReader.endsAt` for the walk of an attribute's record or value: the span is rejected. */
function endsAt(reader: ProtobufReader, end: number): void {
  reader.endsAt(end, 'attribute', SpanReject, 'the record or value holding it');
}

/**
 * The attributes held by the `KeyValue` records of field `field` in `buf[start, end)`: records of
 * other fields in the range are skipped. The bytes must have passed {@link checkKeyValue}.
 *
 * With `skipUnread`, a record whose key is in an unread family (`isUnreadKeyBytes`) is passed over
 * without decoding its value (its key is read through the cache of recurring strings, which keeps
 * the answer with it: decoded once while cached); {@link skippedUnread} then says whether any was.
 */
export function readAttributeRecords(
  buf: Buffer,
  start: number,
  end: number,
  field: number,
  skipUnread = false,
): Attributes {
  const attributes = emptyAttributes();
  const reader = SHARED_READER;
  // Bounded at the range's end: a record can never be read from the bytes past it (another
  // span's, once the memory driver has moved the records of a trace's spans into one buffer).
  reader.reset(buf, start, end);
  const wanted = (field << 3) | LEN;
  skipped = false;
  try {
    while (reader.pos < end) {
      const tag = reader.varint32();
      if (tag !== wanted) reader.skip(tag);
      else if (skipUnread) readKeyValueUnlessUnread(reader, attributes);
      else readKeyValueInto(reader, attributes, 0);
    }
  } finally {
    reader.reset(NO_BYTES, 0, 0); // not to keep the buffer (a request body) alive
    releaseBufferView(KEPT_VIEW_BYTES); // nor a large one through the view of it
  }
  return attributes;
}

let skipped = false;

/** Whether the last {@link readAttributeRecords} with `skipUnread` passed over any record. */
export function skippedUnread(): boolean {
  return skipped;
}

/**
 * {@link readKeyValueInto}, unless the key is in an unread family: then the record is passed over
 * with neither its key nor its value decoded. The key may follow the value on the wire, so the
 * record is walked for both first.
 */
function readKeyValueUnlessUnread(reader: ProtobufReader, attributes: Attributes): void {
  const kvEnd = reader.lenEnd();
  const buf = reader.buf;
  if (readKeyThenValue(reader, buf, kvEnd, attributes)) return;
  let keyStart = 0;
  let keyEnd = 0;
  let valueAt = -1;
  while (reader.pos < kvEnd) {
    const tag = reader.varint32();
    if (tag === KEY_TAG) {
      keyEnd = reader.lenEnd();
      keyStart = reader.pos;
      reader.pos = keyEnd;
    } else if (tag === VALUE_TAG) {
      valueAt = reader.pos; // the last value wins, as in readKeyValueInto
      reader.pos = reader.lenEnd();
    } else reader.skip(tag);
  }
  if (isUnreadKeyBytes(buf, keyStart, keyEnd)) skipped = true;
  else {
    let value: AttributeValue = null;
    if (valueAt !== -1) {
      reader.pos = valueAt;
      const vEnd = reader.lenEnd();
      value = readAnyValue(reader, vEnd, 0);
    }
    setAttribute(attributes, recurringString(buf, keyStart, keyEnd), value);
  }
  reader.pos = kvEnd;
}

/**
 * {@link readKeyValueUnlessUnread} of the record every exporter writes, its key then its value and
 * nothing else (from the reader's position to `kvEnd`), read in one walk: the key is known before
 * the value is reached, so the value is read, or passed over, where it stands. Any other record
 * (a value first, a field twice, another field) returns false with the reader where it was, for the
 * general walk. Its instructions a scored span in the bench's count: 2,838, where the general
 * walk's were 3,646.
 */
function readKeyThenValue(
  reader: ProtobufReader,
  buf: Buffer,
  kvEnd: number,
  attributes: Attributes,
): boolean {
  const at = reader.pos;
  if (at >= kvEnd || buf[at] !== KEY_TAG) return false;
  reader.pos = at + 1;
  const keyEnd = reader.lenEnd();
  const keyStart = reader.pos;
  if (keyEnd >= kvEnd || buf[keyEnd] !== VALUE_TAG) {
    reader.pos = at;
    return false;
  }
  reader.pos = keyEnd + 1;
  const vEnd = reader.lenEnd();
  if (vEnd !== kvEnd) {
    reader.pos = at;
    return false;
  }
  const key = recurringKeyUnlessUnread(buf, keyStart, keyEnd);
  if (key === undefined) skipped = true;
  else setAttribute(attributes, key, readAnyValue(reader, vEnd, 0));
  reader.pos = kvEnd;
  return true;
}

// The reader of readAttributeRecords, reused: a span's attributes are read whole, without a call
// out in between, so one reader serves every span (a reader made per span was about 90 bytes).
const NO_BYTES = Buffer.alloc(0);
const SHARED_READER = new ProtobufReader(NO_BYTES);

/**
 * Checks the `KeyValue` records of field `field` from the reader's position to `end` as
 * {@link readAttributeRecords} will read them, skipping records of other fields.
 */
export function checkAttributeRecords(reader: ProtobufReader, end: number, field: number): void {
  checkRecords(reader, end, field, checkKeyValue, 0);
}

export function readAnyValue(reader: ProtobufReader, end: number, depth: number): AttributeValue {
  if (depth > MAX_ANY_VALUE_DEPTH) {
    throw new SpanReject(`attribute value nested deeper than ${MAX_ANY_VALUE_DEPTH} levels`);
  }
  let value: AttributeValue = null;
  while (reader.pos < end) {
    const tag = reader.varint32();
    switch (tag) {
      case (1 << 3) | LEN:
        value = reader.recurring();
        break;
      case (2 << 3) | VARINT:
        value = reader.varint32() !== 0;
        break;
      case (3 << 3) | VARINT:
        value = reader.int64();
        break;
      case (4 << 3) | FIXED64:
        value = reader.double();
        break;
      case (5 << 3) | LEN: {
        const arrEnd = reader.lenEnd();
        const items: AttributeValue[] = [];
        while (reader.pos < arrEnd) {
          const t = reader.varint32();
          if (t === ((1 << 3) | LEN)) {
            reader.item();
            const itemEnd = reader.lenEnd();
            items.push(readAnyValue(reader, itemEnd, depth + 1));
            reader.pos = itemEnd;
          } else reader.skip(t);
        }
        endsAt(reader, arrEnd);
        value = items;
        break;
      }
      case (6 << 3) | LEN: {
        const listEnd = reader.lenEnd();
        const obj = emptyAttributes();
        while (reader.pos < listEnd) {
          const t = reader.varint32();
          if (t === ((1 << 3) | LEN)) {
            reader.item();
            readKeyValueInto(reader, obj, depth + 1);
          } else reader.skip(t);
        }
        endsAt(reader, listEnd);
        value = obj;
        break;
      }
      case (7 << 3) | LEN:
        value = reader.base64();
        break;
      default:
        reader.skip(tag);
    }
  }
  endsAt(reader, end);
  return value;
}

function checkAnyValue(reader: ProtobufReader, end: number, depth: number): void {
  if (depth > MAX_ANY_VALUE_DEPTH) {
    throw new SpanReject(`attribute value nested deeper than ${MAX_ANY_VALUE_DEPTH} levels`);
  }
  while (reader.pos < end) {
    const tag = reader.varint32();
    switch (tag) {
      case (2 << 3) | VARINT:
      case (3 << 3) | VARINT:
        reader.varint32(); // the same bounds as int64(): at most 10 bytes, within the buffer
        break;
      case (4 << 3) | FIXED64:
        reader.double();
        break;
      case (5 << 3) | LEN: // an ArrayValue's values
        checkRecords(reader, reader.lenEnd(), 1, checkAnyValue, depth + 1);
        break;
      case (6 << 3) | LEN: // a KeyValueList's pairs
        checkRecords(reader, reader.lenEnd(), 1, checkKeyValue, depth + 1);
        break;
      default:
        reader.skip(tag); // strings and bytes: their length is checked, their content is not read
    }
  }
  endsAt(reader, end);
}
