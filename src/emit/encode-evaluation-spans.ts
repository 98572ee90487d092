import { EncodedKeys } from '../protobuf/encoded-keys.js';
import { EncodedStrings } from './encoded-strings.js';
import { ProtobufWriter } from '../protobuf/protobuf-writer.js';
import { WIRE } from '../protobuf/wire-type.js';
import type { EvaluationSpan } from './score-to-span.js';
import { WrittenSpanParts } from './written-span-parts.js';

const { VARINT, FIXED64, LEN, FIXED32 } = WIRE;

/** The resource and instrumentation scope evaluation spans are exported under. */
export interface EvaluationSpanOrigin {
  serviceName: string;
  scope: { name: string; version: string };
}

/** W3C trace flags: sampled. */
const SAMPLED = 0x01;
/** OTLP `SpanFlags`: the parent's is-remote bit is known, and it is remote. */
const HAS_IS_REMOTE = 0x100;
const IS_REMOTE = 0x200;
/** OTLP `Span.SpanKind` INTERNAL. */
const KIND_INTERNAL = 1;

/**
 * The keys of evaluation spans (a fixed set: `scoreToSpan` writes only the conventions' names),
 * encoded once.
 */
const KEYS = new EncodedKeys();
/**
 * String values of evaluation spans (their scorers, tools, agents, services, labels: a process
 * writes the same few again and again), encoded once; others are encoded each time.
 */
const STRINGS = new EncodedStrings();
/**
 * What a request's spans wrote that a later span copies: one for every request (encoding is
 * synchronous), holding nothing between them; a new one each request was about 12 bytes a
 * scored span of allocation.
 */
const WRITTEN = new WrittenSpanParts();
/**
 * Bytes a writer starts with for each evaluation span: room for most (about 1,300 bytes with the
 * tool lists of a 20-span trace), so a batch's buffer rarely grows and is copied.
 */
const BYTES_PER_SPAN = 1536;

/**
 * Evaluation spans as one OTLP `ExportTraceServiceRequest` in protobuf, written directly from
 * {@link EvaluationSpan}s: a measured hot path (every scored trace exports its evaluation spans;
 * going through the SDK's `ReadableSpan` and its serializer cost about three times as much). The
 * bytes say what the SDK's exporter says for the same spans: one resource (`service.name`), one
 * scope, each span INTERNAL, sampled, under its remote parent (`flags` 0x301), with the one link
 * (`link.type: evaluates`, flags 0x101), a session's result also one per earlier turn
 * (`link.type: session_turn`), and the one `gen_ai.evaluation.result` event; integer
 * attribute values as `int_value`, others as `double_value`; status ERROR with its message, or
 * UNSET. Pure but for the keys and strings it keeps encoded (at most 256 and 512) and
 * {@link WRITTEN}.
 */
export function encodeEvaluationSpans(
  spans: readonly EvaluationSpan[],
  origin: EvaluationSpanOrigin,
): Uint8Array {
  const w = new ProtobufWriter(512 + spans.length * BYTES_PER_SPAN, KEYS, STRINGS);
  // ExportTraceServiceRequest.resource_spans (1)
  w.tag(1, LEN);
  const resourceSpans = w.openLength();
  // ResourceSpans.resource (1): Resource.attributes (1)
  w.tag(1, LEN);
  const resource = w.openLength();
  w.tag(1, LEN);
  w.keyValue('service.name', origin.serviceName, 'int-or-double');
  w.closeLength(resource);
  // ResourceSpans.scope_spans (2)
  w.tag(2, LEN);
  const scopeSpans = w.openLength();
  // ScopeSpans.scope (1): name (1), version (2)
  w.tag(1, LEN);
  const scope = w.openLength();
  w.stringField(1, origin.scope.name);
  w.stringField(2, origin.scope.version);
  w.closeLength(scope);
  try {
    for (const span of spans) {
      // ScopeSpans.spans (2)
      w.tag(2, LEN);
      writeSpan(w, span, WRITTEN);
    }
  } finally {
    WRITTEN.forget();
  }
  w.closeLength(scopeSpans);
  w.closeLength(resourceSpans);
  return w.done();
}

function writeSpan(w: ProtobufWriter, span: EvaluationSpan, written: WrittenSpanParts): void {
  written.startSpan(span.traceId);
  const at = w.openLength();
  // Where the trace id's field and the parent's id (after its tag) are: the link names the same
  // ones (as `scoreToSpan` makes spans), and copies their bytes rather than encode the hex again
  // (about 1,100 instructions a 32-digit id). Nothing before the link moves them: a length closed
  // in between moves only what follows its start.
  const traceAt = w.length;
  w.hexField(1, span.traceId);
  const traceEnd = w.length;
  w.hexField(2, span.spanId);
  const parentAt = w.length + 1;
  if (span.parentSpanId) w.hexField(4, span.parentSpanId);
  const parentEnd = w.length;
  w.stringField(5, span.name);
  w.tag(6, VARINT);
  w.varint(KIND_INTERNAL);
  w.tag(7, FIXED64);
  w.u64(span.startTimeUnixNano);
  w.tag(8, FIXED64);
  w.u64(span.endTimeUnixNano);
  written.attributes(w, span.attributes);
  // events (11): time (1), name (2), attributes (3)
  w.tag(11, LEN);
  const event = w.openLength();
  w.tag(1, FIXED64);
  w.u64(span.event.timeUnixNano);
  w.stringField(2, span.event.name);
  written.eventAttributes(w, span.event.attributes, span.attributes);
  w.closeLength(event);
  // links (13): trace id (1), span id (2), attributes (4), flags (6)
  w.tag(13, LEN);
  const link = w.openLength();
  if (span.link.traceId === span.traceId) w.repeat(traceAt, traceEnd);
  else w.hexField(1, span.link.traceId);
  if (span.parentSpanId && span.link.spanId === span.parentSpanId) {
    w.tag(2, LEN);
    w.repeat(parentAt, parentEnd);
  } else w.hexField(2, span.link.spanId);
  w.tag(4, LEN);
  w.keyValue('link.type', 'evaluates', 'int-or-double');
  w.tag(6, FIXED32);
  w.fixed32(SAMPLED | HAS_IS_REMOTE);
  w.closeLength(link);
  for (const turn of span.turnLinks) {
    w.tag(13, LEN);
    const at = w.openLength();
    w.hexField(1, turn.traceId);
    w.hexField(2, turn.spanId);
    w.keyValues(
      4,
      { 'link.type': 'session_turn', 'spanscore.session.turn': turn.turn },
      'int-or-double',
    );
    w.tag(6, FIXED32);
    w.fixed32(SAMPLED | HAS_IS_REMOTE);
    w.closeLength(at);
  }
  // status (15): message (2), code (3)
  w.tag(15, LEN);
  const status = w.openLength();
  if (span.statusCode === 2 && span.statusMessage) w.stringField(2, span.statusMessage);
  w.tag(3, VARINT);
  w.varint(span.statusCode);
  w.closeLength(status);
  // flags (16)
  w.tag(16, FIXED32);
  w.fixed32(SAMPLED | HAS_IS_REMOTE | (span.parentSpanId ? IS_REMOTE : 0));
  const before = w.length;
  w.closeLength(at);
  written.moved(at, w.length - before);
}
