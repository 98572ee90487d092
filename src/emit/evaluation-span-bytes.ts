import type { EvaluationProtocol } from './evaluation-protocol.js';
import type { EvaluationAttributeValue, EvaluationSpan } from './score-to-span.js';

/**
 * Bytes of an export request that are no span's, at most: the resource (`service.name`), the
 * scope, their envelopes (under 100 bytes in protobuf, under 300 in JSON with the default
 * `spanscore` names). The batcher counts them once a request.
 */
export const EVALUATION_REQUEST_BYTES = 1024;

/**
 * At most how many bytes `span` adds to an OTLP export request in `protocol`, worked out from
 * its values without encoding it: a sum over its strings' lengths, once per span as it enters a
 * batch (`withBatching`), allocating nothing. Never less than what the exporter writes:
 *
 * - `http/protobuf`: the size `encodeEvaluationSpans` writes for the span alone (each length's
 *   varint as wide as its content needs; a string's UTF-8 bytes counted from its UTF-16 units, a
 *   surrogate pair as 6 rather than 4), a little over it (a number's `int_value` counted as 10
 *   bytes). A request copies some bytes from its earlier spans rather than encoding them again,
 *   never a different size.
 * - `http/json` (the SDK's JSON serializer): each character of a string as 6 bytes (a control
 *   character or lone surrogate escaped as `\uXXXX`, its worst), and each field's name and
 *   punctuation by a fixed allowance: about four times the protobuf size for ASCII text, so JSON
 *   requests hold fewer spans.
 */
export function evaluationSpanBytes(span: EvaluationSpan, protocol: EvaluationProtocol): number {
  return protocol === 'http/json' ? jsonBytes(span) : protobufBytes(span);
}

// ---- protobuf --------------------------------------------------------------------------------

/** A trace id (16 bytes) or span id (8) as a bytes field: tag, length, bytes. */
const TRACE_ID = 1 + 1 + 16;
const SPAN_ID = 1 + 1 + 8;
/** `link.type: evaluates` as a link's `KeyValue`: tag, length, key, value. */
const EVALUATES_LINK = 1 + field(keyValueBytes(9, 1 + field(9)));
/** A turn link's two attributes (`link.type: session_turn`, the turn as an int_value). */
const TURN_LINK_ATTRIBUTES =
  1 + field(keyValueBytes(9, 1 + field(12))) + 1 + field(keyValueBytes(22, 1 + 10));

function protobufBytes(span: EvaluationSpan): number {
  let n = TRACE_ID + SPAN_ID;
  if (span.parentSpanId) n += SPAN_ID;
  n += 1 + field(utf8Bytes(span.name));
  // kind (2), start and end (9 each), flags (field 16: a 2-byte tag, 4 bytes)
  n += 2 + 9 + 9 + 6;
  n += attributesBytes(span.attributes, 1);
  const event =
    9 + 1 + field(utf8Bytes(span.event.name)) + attributesBytes(span.event.attributes, 1);
  n += 1 + field(event);
  n += 1 + field(TRACE_ID + SPAN_ID + EVALUATES_LINK + 5);
  const turns = span.turnLinks;
  for (let i = 0; i < turns.length; i++)
    n += 1 + field(TRACE_ID + SPAN_ID + TURN_LINK_ATTRIBUTES + 5);
  const message = span.statusCode === 2 && span.statusMessage ? span.statusMessage : '';
  n += 1 + field((message ? 1 + field(utf8Bytes(message)) : 0) + 2);
  // ScopeSpans.spans: tag and length
  return 1 + field(n);
}

/** Repeated `KeyValue` records, each with a `tag`-byte tag. */
function attributesBytes(
  attributes: Readonly<Record<string, EvaluationAttributeValue>>,
  tag: number,
): number {
  let n = 0;
  for (const key in attributes)
    n += tag + field(keyValueBytes(utf8Bytes(key), anyValueBytes(attributes[key]!)));
  return n;
}

/** A `KeyValue` message's content: its key of `keyBytes`, its `AnyValue` of `valueBytes`. */
function keyValueBytes(keyBytes: number, valueBytes: number): number {
  return 1 + field(keyBytes) + 1 + field(valueBytes);
}

/** An `AnyValue` message's content. */
function anyValueBytes(v: EvaluationAttributeValue): number {
  if (typeof v === 'string') return 1 + field(utf8Bytes(v));
  // int_value as a varint of up to 10 bytes (a negative one), double_value 8
  if (typeof v === 'number') return 1 + 10;
  if (typeof v === 'boolean') return 2;
  let list = 0;
  for (let i = 0; i < v.length; i++) list += 1 + field(1 + field(utf8Bytes(v[i]!)));
  return 1 + field(list);
}

/** A length-delimited field's length varint and content (its tag not counted). */
function field(content: number): number {
  return varintBytes(content) + content;
}

function varintBytes(n: number): number {
  return n < 0x80 ? 1 : n < 0x4000 ? 2 : n < 0x200000 ? 3 : n < 0x10000000 ? 4 : 5;
}

/** Below this many UTF-16 units a string is measured in a loop, above by the runtime. */
const SHORT = 64;

/**
 * At least `s`'s UTF-8 bytes: 1 for an ASCII unit, 2 below U+0800, else 3 (a surrogate pair's
 * halves 3 each: 6 where UTF-8 takes 4; a lone half 3, as U+FFFD).
 */
function utf8Bytes(s: string): number {
  // Exact: the writer's `Buffer.write` writes as many (a lone half as U+FFFD's 3).
  if (s.length >= SHORT) return Buffer.byteLength(s, 'utf8');
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    n += c < 0x80 ? 1 : c < 0x800 ? 2 : 3;
  }
  return n;
}

// ---- JSON ------------------------------------------------------------------------------------

/**
 * Allowances, in bytes, for what the JSON serializer writes besides strings' characters: a span's
 * field names, hex ids, timestamps and counts; a link's; an event's and the status's; an
 * attribute's `{"key":…,"value":{"stringValue":…}}`; a list item's `{"stringValue":…}`; a number.
 */
const JSON_SPAN = 640;
const JSON_LINK = 320;
const JSON_EVENT = 160;
const JSON_STATUS = 64;
const JSON_ATTRIBUTE = 64;
const JSON_ITEM = 24;
const JSON_NUMBER = 40;
/** A string's characters at their worst (`\u001f`), and its quotes. */
const jsonText = (s: string): number => 6 * s.length + 2;

function jsonBytes(span: EvaluationSpan): number {
  let n = JSON_SPAN + jsonText(span.name);
  n += jsonAttributes(span.attributes);
  n += JSON_EVENT + jsonText(span.event.name) + jsonAttributes(span.event.attributes);
  n += JSON_LINK * (1 + span.turnLinks.length);
  return n + JSON_STATUS + jsonText(span.statusMessage);
}

function jsonAttributes(attributes: Readonly<Record<string, EvaluationAttributeValue>>): number {
  let n = 0;
  for (const key in attributes) {
    const v = attributes[key]!;
    n += JSON_ATTRIBUTE + jsonText(key);
    if (typeof v === 'string') n += jsonText(v);
    else if (typeof v === 'number' || typeof v === 'boolean') n += JSON_NUMBER;
    else for (let i = 0; i < v.length; i++) n += JSON_ITEM + jsonText(v[i]!);
  }
  return n;
}
