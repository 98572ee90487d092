import { DEFAULT_DECODE_LIMITS, tooManyLogRecords, type DecodeLimits } from './decode-limits.js';
import {
  NO_RESOURCE,
  readExportRequest,
  readResource,
  readScopeName,
  type ResourceFacts,
} from './decode-otlp-protobuf.js';
import { logEventCarrier, logRecordDrop, noDrops, type DecodedLogs } from './log-event-carrier.js';
import { readAnyValue, readKeyValueInto } from './protobuf-key-value.js';
import type { ProtobufReader as Reader } from './protobuf-reader.js';
import { SpanReject } from './protobuf-reader.js';
import type { AttributeValue, SpanDigest } from './span-digest.js';
import { emptyAttributes } from './span-digest.js';
import { WIRE } from '../protobuf/wire-type.js';

// Wire types, by the names the code reads them with.
const { FIXED64, LEN } = WIRE;

/**
 * Decodes an OTLP protobuf `ExportLogsServiceRequest`, keeping the GenAI events as carriers (see
 * `log-event-carrier.ts`) and counting every other record as dropped, by why. Field numbers are
 * those of `opentelemetry/proto/logs/v1/logs.proto`.
 *
 * A record is walked once to find its event name (`event_name`, field 12, else the `event.name`
 * attribute, whose key alone is compared) and ids; only a kept record's body and attributes are
 * decoded. A kept record with a malformed id or a value nested too deep is refused alone; bytes
 * that break the framing of the request throw `SS_TRACE_INPUT_INVALID`; more than
 * `limits.maxSpans` records, or `limits.maxItems` nested items, throw `SS_TRACE_INPUT_TOO_LARGE`.
 */
export function decodeOtlpProtobufLogs(
  bytes: Uint8Array,
  limits: Readonly<DecodeLimits> = DEFAULT_DECODE_LIMITS,
): DecodedLogs {
  const out: Decoding = {
    spans: [],
    rejected: [],
    rejectedCount: 0,
    records: 0,
    dropped: noDrops(),
    limits,
  };
  readExportRequest(bytes, limits, (reader, end, r) => readResourceLogs(reader, end, r, out));
  return {
    spans: out.spans,
    rejected: out.rejected,
    rejectedCount: out.rejectedCount,
    records: out.records,
    dropped: out.dropped,
  };
}

interface Decoding extends DecodedLogs {
  limits: Readonly<DecodeLimits>;
}

function readResourceLogs(reader: Reader, end: number, r: number, out: Decoding): void {
  // The resource (field 1) may follow the scope logs (field 2): carriers made before it get it.
  let resource: ResourceFacts = NO_RESOURCE;
  const first = out.spans.length;
  let s = 0;
  while (reader.pos < end) {
    const tag = reader.varint32();
    if (tag === ((1 << 3) | LEN)) {
      const resEnd = reader.lenEnd();
      resource = readResource(reader, resEnd);
      reader.pos = resEnd;
      for (let i = first; i < out.spans.length; i++) Object.assign(out.spans[i]!, resource);
    } else if (tag === ((2 << 3) | LEN)) {
      reader.item();
      const slEnd = reader.lenEnd();
      readScopeLogs(reader, slEnd, resource, r, s++, out);
      reader.pos = slEnd;
    } else reader.skip(tag);
  }
  reader.endsAt(end, 'resourceLogs');
}

function readScopeLogs(
  reader: Reader,
  end: number,
  resource: ResourceFacts,
  r: number,
  s: number,
  out: Decoding,
): void {
  let scopeName = '';
  const first = out.spans.length;
  let i = 0;
  while (reader.pos < end) {
    const tag = reader.varint32();
    if (tag === ((1 << 3) | LEN)) {
      scopeName = readScopeName(reader, reader.lenEnd());
      for (let k = first; k < out.spans.length; k++) out.spans[k]!.scopeName = scopeName;
    } else if (tag === ((2 << 3) | LEN)) {
      reader.item();
      if (out.records++ >= out.limits.maxSpans) throw tooManyLogRecords(out.limits);
      const recordEnd = reader.lenEnd();
      try {
        const kept = readLogRecord(reader, recordEnd, resource, scopeName, out);
        if (kept) out.spans.push(kept);
      } catch (error) {
        if (!(error instanceof SpanReject)) throw error;
        if (out.rejectedCount++ < out.limits.maxRejectedDetails)
          out.rejected.push({
            path: `resourceLogs[${r}].scopeLogs[${s}].logRecords[${i}]`,
            reason: error.message,
          });
      }
      reader.pos = recordEnd;
      i++;
    } else reader.skip(tag);
  }
  reader.endsAt(end, 'scopeLogs');
}

/** The carrier of a kept record, or `undefined` for a dropped one (counted in `out.dropped`). */
function readLogRecord(
  reader: Reader,
  end: number,
  resource: ResourceFacts,
  scopeName: string,
  out: Decoding,
): SpanDigest | undefined {
  const start = reader.pos;
  let time = 0n;
  let observed = 0n;
  let traceId = '';
  let spanId = '';
  let eventName = '';
  let eventNameAttribute = '';
  let bodyStart = -1;
  let bodyEnd = -1;
  let attributesSeen = false;
  // First walk: names and ids only.
  while (reader.pos < end) {
    const tag = reader.varint32();
    switch (tag) {
      case (1 << 3) | FIXED64:
        time = reader.fixed64();
        break;
      case (11 << 3) | FIXED64:
        observed = reader.fixed64();
        break;
      case (5 << 3) | LEN:
        bodyEnd = reader.lenEnd();
        bodyStart = reader.pos;
        reader.pos = bodyEnd;
        break;
      case (6 << 3) | LEN: {
        reader.item();
        attributesSeen = true;
        const kvEnd = reader.lenEnd();
        if (eventNameAttribute === '') eventNameAttribute = eventNameIn(reader, kvEnd);
        reader.pos = kvEnd;
        break;
      }
      case (9 << 3) | LEN:
        traceId = reader.id(16, 'traceId', 0);
        break;
      case (10 << 3) | LEN:
        spanId = reader.id(8, 'spanId', 1);
        break;
      case (12 << 3) | LEN:
        eventName = reader.recurring();
        break;
      default:
        reader.skip(tag);
    }
  }
  reader.endsAt(end, 'logRecord', SpanReject);
  const name = eventName || eventNameAttribute;
  const drop = logRecordDrop(name);
  if (drop) {
    out.dropped[drop]++;
    return undefined;
  }
  if (traceId === '') {
    out.dropped.no_trace_id++;
    return undefined;
  }
  // Second walk, for a kept record: its attributes and body.
  const attributes = emptyAttributes();
  if (attributesSeen) {
    reader.pos = start;
    while (reader.pos < end) {
      const tag = reader.varint32();
      if (tag === ((6 << 3) | LEN)) readKeyValueInto(reader, attributes, 0);
      else reader.skip(tag);
    }
  }
  let body: AttributeValue | undefined;
  if (bodyStart >= 0) {
    reader.pos = bodyStart;
    body = readAnyValue(reader, bodyEnd, 0);
  }
  return logEventCarrier(
    {
      traceId,
      spanId,
      eventName: name,
      timeUnixNano: time || observed,
      attributes,
      body,
      ...resource,
      scopeName,
    },
    reader.buf.subarray(start, end),
  );
}

/** The value of a `KeyValue` whose key is `event.name`, else `''`; reads nothing else. */
function eventNameIn(reader: Reader, end: number): string {
  let isEventName = false;
  let value = '';
  while (reader.pos < end) {
    const tag = reader.varint32();
    if (tag === ((1 << 3) | LEN)) {
      const keyEnd = reader.lenEnd();
      isEventName =
        keyEnd - reader.pos === 10 &&
        reader.buf.toString('latin1', reader.pos, keyEnd) === 'event.name';
      reader.pos = keyEnd;
      if (!isEventName) return '';
    } else if (tag === ((2 << 3) | LEN) && isEventName) {
      const vEnd = reader.lenEnd();
      while (reader.pos < vEnd) {
        const t = reader.varint32();
        if (t === ((1 << 3) | LEN)) value = reader.string();
        else reader.skip(t);
      }
      reader.endsAt(vEnd, 'logRecord attribute', SpanReject);
    } else reader.skip(tag);
  }
  return isEventName ? value : '';
}
