import { SpanscoreError } from '../errors/spanscore-error.js';
import {
  checkKeyValue,
  readKeyValue,
  readKeyValueInto,
  SPAN_ATTRIBUTES_FIELD,
} from './protobuf-key-value.js';
import {
  DEFAULT_DECODE_LIMITS,
  stoppedAt,
  tooManyItems,
  tooManySpans,
  type DecodeLimits,
} from './decode-limits.js';
import { ProtobufReader as Reader, SpanReject } from './protobuf-reader.js';
import { releaseBufferView } from './buffer-view.js';
import type {
  DecodedRequest,
  RejectedSpan,
  SpanDigest,
  SpanEventDigest,
  SpanKind,
  StatusCode,
} from './span-digest.js';
import { emptyAttributes, NO_EVENTS } from './span-digest.js';
import { WireSpanDigest } from './wire-span-digest.js';
import { resourceText } from './resource-text.js';
import { serviceNameOf, UNKNOWN_SERVICE } from './service-name-of.js';
import { WIRE } from '../protobuf/wire-type.js';

// Wire types, by the names the code reads them with.
const { VARINT, FIXED64, LEN } = WIRE;

/**
 * Decodes an OTLP protobuf `ExportTraceServiceRequest` straight into span digests.
 *
 * Written on the wire format for our digest: it skips fields scoring never reads (trace state,
 * links, dropped counts, flags, schema URLs, scope versions) without decoding them and builds no
 * intermediate message objects. A span's attributes are checked here but decoded only when read:
 * each span is a {@link WireSpanDigest} holding its attribute records in `bytes`, which must not
 * be modified afterwards. spanscore's own readers (`readAttributes`) decode all but the keys in
 * an unread family (`UNREAD_ATTRIBUTE_FAMILIES`: HTTP, token usage, response ids…), whose keys and
 * values stay bytes unless something reads the whole `attributes`. Field numbers are those of `opentelemetry/proto/trace/v1/trace.proto`
 * and `common/v1/common.proto`.
 *
 * A span whose own bytes are malformed (a bad id length, an unknown enum) is rejected alone; bytes
 * that break the framing of the request itself (a length past the end, a bad wire type) throw
 * `SS_TRACE_INPUT_INVALID`, since nothing after that point can be trusted.
 */
export function decodeOtlpProtobuf(
  bytes: Uint8Array,
  limits: Readonly<DecodeLimits> = DEFAULT_DECODE_LIMITS,
): DecodedRequest {
  const out: Decoding = { spans: decoded, count: 0, rejected: [], rejectedCount: 0, limits };
  try {
    readExportRequest(bytes, limits, (reader, end, r) => readResourceSpans(reader, end, r, out));
    return {
      spans: decoded.slice(0, out.count) as SpanDigest[], // the first `count` are all set
      rejected: out.rejected,
      rejectedCount: out.rejectedCount,
    };
  } finally {
    // Not to keep the spans (and their request body) alive, nor a large request's array.
    if (decoded.length > KEPT_SPAN_SLOTS) decoded = [];
    else decoded.fill(undefined, 0, out.count);
  }
}

/**
 * The spans of the request being decoded, in an array kept from request to request (up to
 * {@link KEPT_SPAN_SLOTS} slots), and copied once at the end to an array of their exact number.
 * Why: an array grown a push at a time allocated about three times its final size (23 heap bytes
 * a span of a 512-span request); this allocates it once.
 */
let decoded: (SpanDigest | undefined)[] = [];
const KEPT_SPAN_SLOTS = 4096;

/**
 * The frame every OTLP export request shares (`Export{Trace,Logs}ServiceRequest`): each
 * `resource_{spans,logs}` entry (field 1) handed to `readEntry` with its end and index, under
 * `limits.maxItems` nested items. Bytes that break the framing throw `SS_TRACE_INPUT_INVALID`
 * naming the byte; a `SpanscoreError` from `readEntry` (a limit) passes through.
 */
export function readExportRequest(
  bytes: Uint8Array,
  limits: Readonly<DecodeLimits>,
  readEntry: (reader: Reader, end: number, index: number) => void,
): void {
  const buf = Buffer.isBuffer(bytes)
    ? bytes
    : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const reader = new Reader(buf);
  reader.itemsLeft = limits.maxItems;
  reader.itemsExceeded = () => {
    throw tooManyItems(limits);
  };
  try {
    let r = 0;
    while (reader.pos < buf.length) {
      const tag = reader.varint32();
      if (tag === ((1 << 3) | LEN)) {
        reader.item();
        const end = reader.lenEnd();
        readEntry(reader, end, r++);
        reader.pos = end;
      } else reader.skip(tag);
    }
  } catch (error) {
    if (error instanceof SpanscoreError)
      throw error.code === 'SS_TRACE_INPUT_TOO_LARGE'
        ? stoppedAt(error, reader.pos, buf.length)
        : error;
    throw new SpanscoreError(
      'SS_TRACE_INPUT_INVALID',
      `invalid protobuf at byte ${reader.pos}: ${(error as Error).message}`,
      { cause: error },
    );
  } finally {
    releaseBufferView(); // not to keep the request body alive
  }
}

/**
 * The name of an `InstrumentationScope` (field 1) at the reader's position, up to `end`, cut at
 * `MAX_RESOURCE_TEXT_CHARS` (see `resourceText`).
 */
export function readScopeName(reader: Reader, end: number): string {
  let name = '';
  while (reader.pos < end) {
    const t = reader.varint32();
    if (t === ((1 << 3) | LEN)) name = reader.recurring();
    else reader.skip(t);
  }
  reader.endsAt(end, 'scope');
  return resourceText(name);
}

/**
 * A request being decoded, and the limits it is decoded under: its spans are the first `count`
 * of `spans`.
 */
interface Decoding extends Omit<DecodedRequest, 'spans'> {
  spans: (SpanDigest | undefined)[];
  count: number;
  limits: Readonly<DecodeLimits>;
}

function readResourceSpans(reader: Reader, end: number, r: number, out: Decoding): void {
  // Spans are decoded as they come. The resource (field 1) may come after the scope spans (field
  // 2) on the wire: the spans decoded before it get its service name afterwards.
  let resource: ResourceFacts = NO_RESOURCE;
  const first = out.count;
  let late = false;
  let s = 0;
  while (reader.pos < end) {
    const tag = reader.varint32();
    if (tag === ((1 << 3) | LEN)) {
      const resEnd = reader.lenEnd();
      resource = readResource(reader, resEnd);
      reader.pos = resEnd;
      late = out.count > first;
    } else if (tag === ((2 << 3) | LEN)) {
      reader.item();
      const ssEnd = reader.lenEnd();
      readScopeSpans(reader, ssEnd, resource, r, s++, out);
      reader.pos = ssEnd;
    } else reader.skip(tag);
  }
  reader.endsAt(end, 'resourceSpans');
  if (late)
    for (let i = first; i < out.count; i++) {
      const span = out.spans[i] as WireSpanDigest;
      span.serviceName = resource.serviceName;
      span.serviceVersion = resource.serviceVersion;
      span.deploymentEnvironment = resource.deploymentEnvironment;
    }
}

/** What spanscore reads of a resource: the service and where it runs. */
export interface ResourceFacts {
  serviceName: string;
  serviceVersion: string;
  deploymentEnvironment: string;
}

export const NO_RESOURCE: ResourceFacts = {
  serviceName: UNKNOWN_SERVICE,
  serviceVersion: '',
  deploymentEnvironment: '',
};

export function readResource(reader: Reader, end: number): ResourceFacts {
  let serviceName = '';
  let serviceVersion = '';
  let environment = '';
  let legacyEnvironment = '';
  while (reader.pos < end) {
    const tag = reader.varint32();
    if (tag === ((1 << 3) | LEN)) {
      reader.item();
      const kvEnd = reader.lenEnd();
      const [key, value] = readKeyValue(reader, kvEnd, 0);
      if (typeof value === 'string') {
        if (key === 'service.name') serviceName = value;
        else if (key === 'service.version') serviceVersion = value;
        else if (key === 'deployment.environment.name') environment = value;
        else if (key === 'deployment.environment') legacyEnvironment = value;
      }
      reader.pos = kvEnd;
    } else reader.skip(tag);
  }
  reader.endsAt(end, 'resource');
  return {
    serviceName: serviceNameOf(serviceName),
    serviceVersion: resourceText(serviceVersion),
    deploymentEnvironment: resourceText(environment || legacyEnvironment),
  };
}

function readScopeSpans(
  reader: Reader,
  end: number,
  resource: ResourceFacts,
  r: number,
  s: number,
  out: Decoding,
): void {
  // As in readResourceSpans: a scope (field 1) after some spans is given to them afterwards.
  let scopeName = '';
  const first = out.count;
  let late = false;
  let i = 0;
  while (reader.pos < end) {
    const tag = reader.varint32();
    if (tag === ((1 << 3) | LEN)) {
      scopeName = readScopeName(reader, reader.lenEnd());
      late = out.count > first;
    } else if (tag === ((2 << 3) | LEN)) {
      reader.item();
      if (out.count + out.rejectedCount >= out.limits.maxSpans) throw tooManySpans(out.limits);
      const spanEnd = reader.lenEnd();
      try {
        out.spans[out.count] = readSpan(reader, spanEnd, resource, scopeName);
        out.count++;
      } catch (error) {
        if (!(error instanceof SpanReject)) throw error;
        if (out.rejectedCount++ < out.limits.maxRejectedDetails) {
          const rejected: RejectedSpan = {
            path: `resourceSpans[${r}].scopeSpans[${s}].spans[${i}]`,
            reason: error.message,
          };
          out.rejected.push(rejected);
        }
      }
      reader.pos = spanEnd;
      i++;
    } else reader.skip(tag);
  }
  reader.endsAt(end, 'scopeSpans');
  if (late) for (let k = first; k < out.count; k++) out.spans[k]!.scopeName = scopeName;
}

function readSpan(
  reader: Reader,
  end: number,
  resource: ResourceFacts,
  scopeName: string,
): SpanDigest {
  let traceId = '';
  let spanId = '';
  let parentSpanId = '';
  let name = '';
  let kind = 0;
  let start = 0n;
  let stop = 0n;
  // The attribute records' range: from the first record's tag to the last record's end. Other
  // fields between records (unusual) stay in the range and are skipped when it is read.
  let attrStart = end;
  let attrEnd = end;
  let events = NO_EVENTS; // an array of its own at the first event
  let statusCode = 0;
  let statusMessage = '';
  while (reader.pos < end) {
    const at = reader.pos;
    const tag = reader.varint32();
    switch (tag) {
      case (1 << 3) | LEN:
        traceId = reader.id(16, 'traceId', 0);
        break;
      case (2 << 3) | LEN:
        spanId = reader.id(8, 'spanId');
        break;
      case (4 << 3) | LEN:
        parentSpanId = reader.id(8, 'parentSpanId', 1);
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
      case (SPAN_ATTRIBUTES_FIELD << 3) | LEN: {
        reader.item();
        const kvEnd = reader.lenEnd();
        checkKeyValue(reader, kvEnd, 0);
        reader.pos = kvEnd;
        if (attrStart === end) attrStart = at;
        attrEnd = kvEnd;
        break;
      }
      case (11 << 3) | LEN: {
        reader.item();
        const evEnd = reader.lenEnd();
        if (events === NO_EVENTS) events = [];
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
        reader.endsAt(stEnd, 'status', SpanReject);
        break;
      }
      default:
        reader.skip(tag);
    }
  }
  reader.endsAt(end, 'span', SpanReject);
  if (!traceId) throw new SpanReject('traceId: is missing or all zeros');
  if (!spanId) throw new SpanReject('spanId: is missing or all zeros');
  return new WireSpanDigest(
    traceId,
    spanId,
    parentSpanId,
    name,
    kind as SpanKind,
    start,
    stop,
    reader.buf,
    attrStart,
    attrEnd,
    events,
    statusCode as StatusCode,
    statusMessage,
    resource.serviceName,
    scopeName,
    resource.serviceVersion,
    resource.deploymentEnvironment,
  );
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
      reader.item();
      readKeyValueInto(reader, attributes, 0);
    } else reader.skip(tag);
  }
  reader.endsAt(end, 'event', SpanReject);
  return { name, timeUnixNano: time, attributes };
}
