import type {
  AttributeValue,
  Attributes,
  SpanDigest,
  SpanEventDigest,
  SpanKind,
  StatusCode,
} from '../ingest/span-digest.js';
import { emptyAttributes, setAttribute } from '../ingest/span-digest.js';
import {
  checkAttributeRecords,
  readAttributeRecords,
  SPAN_ATTRIBUTES_FIELD,
} from '../ingest/protobuf-key-value.js';
import { ProtobufReader } from '../ingest/protobuf-reader.js';
import { ProtobufWriter } from '../protobuf/protobuf-writer.js';
import { readU64LE } from '../protobuf/u64-le.js';
import { KEPT_VIEW_BYTES, releaseBufferView } from '../ingest/buffer-view.js';
import { recurringString } from '../ingest/recurring-string.js';
import { WireSpanDigest } from '../ingest/wire-span-digest.js';
import { decodeSpanDigest } from './span-digest-codec.js';

/**
 * The binary form of span digests in Redis (the span buffer) and in judge jobs: one buffer per
 * batch of spans, written once by the receiver and read once by a worker. A measured hot path:
 * against the JSON codec it replaced it cut the receiver's encoding and the worker's decoding
 * and the bytes Redis moves and keeps (numbers in docs/performance.md).
 *
 * Layout (version 3), little-endian: a version byte, a varint span count, then per span the
 * strings trace id, span id, parent span id, name, status message, service name, scope name,
 * service version and deployment environment (the last two `''` when absent); kind and status code as bytes; start and end as unsigned 64-bit nanoseconds; attributes; events
 * (name, time, attributes). Strings are a varint byte length and UTF-8.
 *
 * Attributes are a varint byte length and OTLP protobuf: `KeyValue` records of field 9, as in
 * `Span.attributes`. A span that came from the protobuf decoder with its attributes still unread
 * ({@link WireSpanDigest}) has its records copied as they came, so the receiver decodes and
 * re-encodes no attribute; other attributes are written as `AnyValue`s (a number as a double,
 * every JS number exactly; `null` as an empty value). Read back, a span's attributes are decoded
 * when first read, nested key/value lists without a prototype, like every attributes object.
 *
 * Versions 2 (without service version and environment) and 1 (also with attributes in a tagged
 * format of its own) are still read, so batches left in Redis across an upgrade are not lost.
 */
const VERSION = 3;
const VERSION_2 = 2;
const VERSION_1 = 1;
/** Version 1's attribute value tags. */
const TAG = { null: 0, string: 1, number: 2, true: 3, false: 4, array: 5, object: 6 } as const;

/** Encodes spans into one buffer; {@link decodeSpanBatch} gives them back exactly. */
export function encodeSpanBatch(spans: readonly SpanDigest[]): Buffer {
  const w = new ProtobufWriter(256 + spans.length * 512);
  w.byte(VERSION);
  w.varint(spans.length);
  for (const s of spans) {
    w.string(s.traceId);
    w.string(s.spanId);
    w.string(s.parentSpanId);
    w.string(s.name);
    w.string(s.statusMessage);
    w.string(s.serviceName);
    w.string(s.scopeName);
    w.string(s.serviceVersion ?? '');
    w.string(s.deploymentEnvironment ?? '');
    w.byte(s.kind);
    w.byte(s.statusCode);
    w.u64(s.startTimeUnixNano);
    w.u64(s.endTimeUnixNano);
    const records = s instanceof WireSpanDigest ? s.attributeRecords() : undefined;
    if (records) {
      w.varint(records.end - records.start);
      w.copy(records.buf, records.start, records.end);
    } else attributeRecords(w, s.attributes);
    w.varint(s.events.length);
    for (const e of s.events) {
      w.string(e.name);
      w.u64(e.timeUnixNano);
      attributeRecords(w, e.attributes);
    }
  }
  return w.done();
}

/** Attributes as a varint byte length and `KeyValue` records of field 9 (see the layout). */
function attributeRecords(w: ProtobufWriter, attributes: Attributes): void {
  const at = w.openLength();
  w.keyValues(SPAN_ATTRIBUTES_FIELD, attributes, 'double');
  w.closeLength(at);
}

/**
 * The spans of one buffer written by {@link encodeSpanBatch}. A buffer holding one JSON span digest
 * (the format before this codec, which may still sit in Redis across an upgrade) is read too.
 * Throws on bytes neither wrote.
 */
export function decodeSpanBatch(buf: Buffer): SpanDigest[] {
  try {
    return readSpanBatch(buf);
  } finally {
    // The spans hold `buf` while they live; past them the cache's view holds only a small one.
    releaseBufferView(KEPT_VIEW_BYTES);
  }
}

function readSpanBatch(buf: Buffer): SpanDigest[] {
  if (buf[0] === 0x7b) return [decodeSpanDigest(buf.toString('utf8'))]; // '{': a JSON digest
  const version = buf[0];
  if (version !== VERSION && version !== VERSION_2 && version !== VERSION_1)
    throw new Error(`span batch: unknown version ${version}`);
  const r = new Reader(buf, 1);
  const count = r.varint();
  const spans: SpanDigest[] = [];
  for (let i = 0; i < count; i++) {
    const traceId = r.string();
    const spanId = r.uniqueString();
    const parentSpanId = r.string();
    const name = r.string();
    const statusMessage = r.string();
    const serviceName = r.string();
    const scopeName = r.string();
    // Version 3 adds the resource's service.version and deployment environment.
    const serviceVersion = version === VERSION ? r.string() : '';
    const deploymentEnvironment = version === VERSION ? r.string() : '';
    const kind = r.byte() as SpanKind;
    const statusCode = r.byte() as StatusCode;
    const startTimeUnixNano = r.u64();
    const endTimeUnixNano = r.u64();
    // Version 1 attributes are read now; version 2 span attributes when first read.
    const v1Attributes = version === VERSION_1 ? r.attributes() : undefined;
    const [start, end] = v1Attributes ? [0, 0] : r.keyValues();
    const eventCount = r.varint();
    const events: SpanEventDigest[] = [];
    for (let e = 0; e < eventCount; e++)
      events.push({
        name: r.string(),
        timeUnixNano: r.u64(),
        attributes: r.eventAttributes(version),
      });
    if (v1Attributes) {
      spans.push({
        traceId,
        spanId,
        parentSpanId,
        name,
        kind,
        startTimeUnixNano,
        endTimeUnixNano,
        attributes: v1Attributes,
        events,
        statusCode,
        statusMessage,
        serviceName,
        scopeName,
        serviceVersion,
        deploymentEnvironment,
      });
      continue;
    }
    spans.push(
      new WireSpanDigest(
        traceId,
        spanId,
        parentSpanId,
        name,
        kind,
        startTimeUnixNano,
        endTimeUnixNano,
        buf,
        start,
        end,
        events,
        statusCode,
        statusMessage,
        serviceName,
        scopeName,
        serviceVersion,
        deploymentEnvironment,
      ),
    );
  }
  if (r.pos !== buf.length) throw new Error(`span batch: ${buf.length - r.pos} bytes left over`);
  return spans;
}

class Reader {
  constructor(
    private readonly buf: Buffer,
    public pos: number,
  ) {}

  byte(): number {
    if (this.pos >= this.buf.length) throw new Error('span batch: truncated');
    return this.buf[this.pos++]!;
  }

  varint(): number {
    let n = 0;
    for (let shift = 0; shift < 35; shift += 7) {
      const b = this.byte();
      n += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) return n;
    }
    throw new Error('span batch: varint too long');
  }

  /**
   * A string that never repeats (a span id): decoded, not looked up in the cache of recurring
   * strings, where it would only displace keys and names that do repeat.
   */
  uniqueString(): string {
    const n = this.varint();
    const end = this.pos + n;
    if (end > this.buf.length) throw new Error('span batch: truncated');
    const s = this.buf.toString('utf8', this.pos, end);
    this.pos = end;
    return s;
  }

  string(): string {
    const n = this.varint();
    const end = this.pos + n;
    if (end > this.buf.length) throw new Error('span batch: truncated');
    // Keys, names and short values repeat in every span: decoded once, then from the cache.
    const s = recurringString(this.buf, this.pos, end);
    this.pos = end;
    return s;
  }

  u64(): bigint {
    if (this.pos + 8 > this.buf.length) throw new Error('span batch: truncated');
    const n = readU64LE(this.buf, this.pos);
    this.pos += 8;
    return n;
  }

  /**
   * A version 2 attributes field: its records' range in the buffer, after checking them as the
   * protobuf decoder does, so that reading them later cannot fail.
   */
  keyValues(): [number, number] {
    const len = this.varint();
    const start = this.pos;
    const end = start + len;
    if (end > this.buf.length) throw new Error('span batch: truncated');
    const reader = new ProtobufReader(this.buf, end);
    reader.pos = start;
    try {
      // Copied records may hold other span fields between them: skipped, as when read.
      checkAttributeRecords(reader, end, SPAN_ATTRIBUTES_FIELD);
    } catch (error) {
      throw new Error(
        `span batch: bad attributes at byte ${reader.pos}: ${(error as Error).message}`,
        { cause: error },
      );
    }
    this.pos = end;
    return [start, end];
  }

  /** An event's attributes, decoded now. */
  eventAttributes(version: number): Attributes {
    if (version === VERSION_1) return this.attributes();
    const [start, end] = this.keyValues();
    return readAttributeRecords(this.buf, start, end, SPAN_ATTRIBUTES_FIELD);
  }

  /** Version 1 attributes. */
  attributes(): Attributes {
    const out = emptyAttributes();
    const count = this.varint();
    for (let i = 0; i < count; i++) {
      const key = this.string();
      setAttribute(out, key, this.value());
    }
    return out;
  }

  value(): AttributeValue {
    const tag = this.byte();
    switch (tag) {
      case TAG.string:
        return this.string();
      case TAG.number: {
        if (this.pos + 8 > this.buf.length) throw new Error('span batch: truncated');
        const n = this.buf.readDoubleLE(this.pos);
        this.pos += 8;
        return n;
      }
      case TAG.true:
        return true;
      case TAG.false:
        return false;
      case TAG.null:
        return null;
      case TAG.array: {
        const n = this.varint();
        const items: AttributeValue[] = [];
        for (let i = 0; i < n; i++) items.push(this.value());
        return items;
      }
      case TAG.object:
        return this.attributes();
      default:
        throw new Error(`span batch: unknown value tag ${tag}`);
    }
  }
}
