import { decodeOtlpJson } from '../../src/ingest/decode-otlp-json.js';
import type { SpanDigest } from '../../src/ingest/span-digest.js';
import { otlpRequest, spanId, traceId } from './otlp-json-builder.js';

let nextSpan = 100;

/**
 * Span digests of trace `t` for the assembly tests: the name `root` is span 1 with no parent;
 * every other name is a new child of it, with an id never used before.
 */
export function childSpans(t: number, names: string[]): SpanDigest[] {
  return decodeOtlpJson(
    otlpRequest(
      names.map((name, i) => ({
        traceId: traceId(t),
        spanId: spanId(t, name === 'root' ? 1 : nextSpan++),
        ...(name !== 'root' && { parentSpanId: spanId(t, 1) }),
        name,
        startMs: i,
        endMs: i + 1,
      })),
    ),
  ).spans;
}
