import { SpanscoreError } from '../errors/spanscore-error.js';
import { MAX_ANY_VALUE_DEPTH } from './decode-otlp-json.js';
import { ProtobufReader as Reader, SpanReject } from './protobuf-reader.js';
import type {
  AttributeValue,
  DecodedRequest,
  RejectedSpan,
  SpanDigest,
  SpanEventDigest,
  SpanKind,
  StatusCode,
} from './span-digest.js';
import { emptyAttributes, setAttribute } from './span-digest.js';

// Wire types (protobuf encoding spec).
const VARINT = 0;
const FIXED64 = 1;
const LEN = 2;

/**
 * Decodes an OTLP protobuf `ExportTraceServiceRequest` straight into span digests.
 *
 * Written on the wire format for our digest: it reads each byte once, skips fields scoring never
 * reads (trace state, links, dropped counts, flags, schema URLs, scope versions) without decoding
 * them, and builds no intermediate message objects. Field numbers are those of
 * `opentelemetry/proto/trace/v1/trace.proto` and `common/v1/common.proto`.
 *
 * A span whose own bytes are malformed (a bad id length, an unknown enum) is rejected alone; bytes
 * that break the framing of the request itself (a length past the end, a bad wire type) throw
 * `SS_TRACE_INPUT_INVALID`, since nothing after that point can be trusted.
 */
export function decodeOtlpProtobuf(bytes: Uint8Array): DecodedRequest {
  const buf = Buffer.isBuffer(bytes)
    ? bytes
    : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const reader = new Reader(buf);
  const out: DecodedRequest = { spans: [], rejected: [] };
  try {
    let r = 0;
    while (reader.pos < buf.length) {
      const tag = reader.varint32();
      if (tag === ((1 << 3) | LEN)) {
        const end = reader.lenEnd();
        readResourceSpans(reader, end, r++, out);
        reader.pos = end;
      } else reader.skip(tag);
    }
  } catch (error) {
    if (error instanceof SpanscoreError) throw error;
    throw new SpanscoreError(
      'SS_TRACE_INPUT_INVALID',
      `invalid protobuf at byte ${reader.pos}: ${(error as Error).message}`,
      { cause: error },
    );
  }
  return out;
}

function readResourceSpans(reader: Reader, end: number, r: number, out: DecodedRequest): void {
  // The resource (field 1) may come after the scope spans (field 2) on the wire; collect the
  // scope spans' byte ranges first and decode them once the service name is known.
  let serviceName = '';
  const scopes: Array<[number, number]> = [];
  while (reader.pos < end) {
    const tag = reader.varint32();
    if (tag === ((1 << 3) | LEN)) {
      const resEnd = reader.lenEnd();
      serviceName = readServiceName(reader, resEnd) ?? serviceName;
      reader.pos = resEnd;
    } else if (tag === ((2 << 3) | LEN)) {
      const ssEnd = reader.lenEnd();
      scopes.push([reader.pos, ssEnd]);
      reader.pos = ssEnd;
    } else reader.skip(tag);
  }
  const after = reader.pos;
  scopes.forEach(([start, ssEnd], s) => {
    reader.pos = start;
    readScopeSpans(reader, ssEnd, serviceName, `resourceSpans[${r}].scopeSpans[${s}]`, out);
  });
  reader.pos = after;
}

function readServiceName(reader: Reader, end: number): string | undefined {
  let name: string | undefined;
  while (reader.pos < end) {
    const tag = reader.varint32();
    if (tag === ((1 << 3) | LEN)) {
      const kvEnd = reader.lenEnd();
      const [key, value] = readKeyValue(reader, kvEnd, 0);
      if (key === 'service.name' && typeof value === 'string') name = value;
      reader.pos = kvEnd;
    } else reader.skip(tag);
  }
  return name;
}

function readScopeSpans(
  reader: Reader,
  end: number,
  serviceName: string,
  path: string,
  out: DecodedRequest,
): void {
  let scopeName = '';
  const spans: Array<[number, number]> = [];
  while (reader.pos < end) {
    const tag = reader.varint32();
    if (tag === ((1 << 3) | LEN)) {
      const scopeEnd = reader.lenEnd();
      while (reader.pos < scopeEnd) {
        const t = reader.varint32();
        if (t === ((1 << 3) | LEN)) scopeName = reader.recurring();
        else reader.skip(t);
      }
    } else if (tag === ((2 << 3) | LEN)) {
      const spanEnd = reader.lenEnd();
      spans.push([reader.pos, spanEnd]);
      reader.pos = spanEnd;
    } else reader.skip(tag);
  }
  spans.forEach(([start, spanEnd], i) => {
    reader.pos = start;
    try {
      out.spans.push(readSpan(reader, spanEnd, serviceName, scopeName));
    } catch (error) {
      if (!(error instanceof SpanReject)) throw error;
      const rejected: RejectedSpan = { path: `${path}.spans[${i}]`, reason: error.message };
      out.rejected.push(rejected);
    }
  });
  reader.pos = end;
}

function readSpan(reader: Reader, end: number, serviceName: string, scopeName: string): SpanDigest {
  let traceId = '';
  let spanId = '';
  let parentSpanId = '';
  let name = '';
  let kind = 0;
  let start = 0n;
  let stop = 0n;
  const attributes = emptyAttributes();
  const events: SpanEventDigest[] = [];
  let statusCode = 0;
  let statusMessage = '';
  while (reader.pos < end) {
    const tag = reader.varint32();
    switch (tag) {
      case (1 << 3) | LEN:
        traceId = reader.id(16, 'traceId');
        break;
      case (2 << 3) | LEN:
        spanId = reader.id(8, 'spanId');
        break;
      case (4 << 3) | LEN:
        parentSpanId = reader.id(8, 'parentSpanId');
        break;
      case (5 << 3) | LEN:
        name = reader.recurring();
        break;
      case (6 << 3) | VARINT:
        kind = reader.varint32();
        if (kind > 5) throw new SpanReject(`kind: unknown SpanKind ${kind}`);
        break;
      case (7 << 3) | FIXED64:
        start = reader.fixed64();
        break;
      case (8 << 3) | FIXED64:
        stop = reader.fixed64();
        break;
      case (9 << 3) | LEN: {
        const kvEnd = reader.lenEnd();
        const [key, value] = readKeyValue(reader, kvEnd, 0);
        setAttribute(attributes, key, value);
        reader.pos = kvEnd;
        break;
      }
      case (11 << 3) | LEN: {
        const evEnd = reader.lenEnd();
        events.push(readEvent(reader, evEnd));
        reader.pos = evEnd;
        break;
      }
      case (15 << 3) | LEN: {
        const stEnd = reader.lenEnd();
        while (reader.pos < stEnd) {
          const t = reader.varint32();
          if (t === ((2 << 3) | LEN)) statusMessage = reader.string();
          else if (t === ((3 << 3) | VARINT)) {
            statusCode = reader.varint32();
            if (statusCode > 2)
              throw new SpanReject(`status.code: unknown StatusCode ${statusCode}`);
          } else reader.skip(t);
        }
        break;
      }
      default:
        reader.skip(tag);
    }
  }
  if (!traceId) throw new SpanReject('traceId: is missing or all zeros');
  if (!spanId) throw new SpanReject('spanId: is missing or all zeros');
  return {
    traceId,
    spanId,
    parentSpanId,
    name,
    kind: kind as SpanKind,
    startTimeUnixNano: start,
    endTimeUnixNano: stop,
    attributes,
    events,
    statusCode: statusCode as StatusCode,
    statusMessage,
    serviceName,
    scopeName,
  };
}

function readEvent(reader: Reader, end: number): SpanEventDigest {
  let name = '';
  let time = 0n;
  const attributes = emptyAttributes();
  while (reader.pos < end) {
    const tag = reader.varint32();
    if (tag === ((1 << 3) | FIXED64)) time = reader.fixed64();
    else if (tag === ((2 << 3) | LEN)) name = reader.recurring();
    else if (tag === ((3 << 3) | LEN)) {
      const kvEnd = reader.lenEnd();
      const [key, value] = readKeyValue(reader, kvEnd, 0);
      setAttribute(attributes, key, value);
      reader.pos = kvEnd;
    } else reader.skip(tag);
  }
  return { name, timeUnixNano: time, attributes };
}

function readKeyValue(reader: Reader, end: number, depth: number): [string, AttributeValue] {
  let key = '';
  let value: AttributeValue = null;
  while (reader.pos < end) {
    const tag = reader.varint32();
    if (tag === ((1 << 3) | LEN)) key = reader.recurring();
    else if (tag === ((2 << 3) | LEN)) {
      const vEnd = reader.lenEnd();
      value = readAnyValue(reader, vEnd, depth);
      reader.pos = vEnd;
    } else reader.skip(tag);
  }
  return [key, value];
}

function readAnyValue(reader: Reader, end: number, depth: number): AttributeValue {
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
            const itemEnd = reader.lenEnd();
            items.push(readAnyValue(reader, itemEnd, depth + 1));
            reader.pos = itemEnd;
          } else reader.skip(t);
        }
        value = items;
        break;
      }
      case (6 << 3) | LEN: {
        const listEnd = reader.lenEnd();
        const obj: Record<string, AttributeValue> = {};
        while (reader.pos < listEnd) {
          const t = reader.varint32();
          if (t === ((1 << 3) | LEN)) {
            const kvEnd = reader.lenEnd();
            const [k, v] = readKeyValue(reader, kvEnd, depth + 1);
            setAttribute(obj, k, v);
            reader.pos = kvEnd;
          } else reader.skip(t);
        }
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
  return value;
}
