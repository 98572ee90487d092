import { gzipSync } from 'node:zlib';
import { field } from './protobuf-bytes.js';

/**
 * Request bodies that cost little to send and much to decode: the shapes an attacker (or a broken
 * exporter) uses against an OTLP receiver. Each is built on the wire here, not by an SDK, since no
 * SDK produces them.
 */

/** `count` copies of `item` (a short byte run), without building an array of `count` buffers. */
function repeat(item: Buffer, count: number): Buffer {
  const out = Buffer.allocUnsafe(item.length * count);
  for (let at = 0; at < out.length; at += item.length) item.copy(out, at);
  return out;
}

/** An `ExportTraceServiceRequest` of one resource and one scope holding `count` empty spans. */
export function emptySpansProtobuf(count: number): Buffer {
  return field(1, field(2, repeat(Buffer.from([0x12, 0x00]), count)));
}

/** One span (valid ids) with `count` empty attributes. */
export function emptyAttributesProtobuf(count: number): Buffer {
  const span = Buffer.concat([
    field(1, Buffer.alloc(16, 1)),
    field(2, Buffer.alloc(8, 2)),
    field(5, Buffer.from('s')),
    repeat(Buffer.from([0x4a, 0x00]), count), // field 9 (attributes), empty KeyValue
  ]);
  return field(1, field(2, field(2, span)));
}

/** An `ExportTraceServiceRequest` of one resource holding `count` empty scopes. */
export function emptyScopesProtobuf(count: number): Buffer {
  return field(1, repeat(Buffer.from([0x12, 0x00]), count));
}

/** `{"resourceSpans":[{"scopeSpans":[{"spans":[{},{},…]}]}]}` with `count` empty spans. */
export function emptySpansJson(count: number): Buffer {
  return Buffer.concat([
    Buffer.from('{"resourceSpans":[{"scopeSpans":[{"spans":['),
    repeat(Buffer.from('{},'), count - 1),
    Buffer.from('{}]}]}]}'),
  ]);
}

/** An attribute value nested `depth` arrays deep, as OTLP/JSON. */
export function deepJson(depth: number): Buffer {
  const open = '{"arrayValue":{"values":['.repeat(depth);
  const close = ']}}'.repeat(depth);
  return Buffer.from(
    `{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"${'1'.repeat(32)}","spanId":"${'2'.repeat(16)}","name":"s","attributes":[{"key":"k","value":${open}${close}}]}]}]}]}`,
  );
}

export const gzip = (body: Buffer): Buffer => gzipSync(body, { level: 9 });
