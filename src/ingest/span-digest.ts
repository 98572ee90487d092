/**
 * The internal model of a span: only what normalization and scoring read. Both OTLP decoders
 * (JSON and protobuf) produce it directly, so nothing downstream sees wire formats.
 */

import type { AttributeValue } from '../protobuf/attribute-value.js';
import { setOwnKey } from './set-own-key.js';

export type { AttributeValue };

/** Span attributes by key. */
export type Attributes = Record<string, AttributeValue>;

/** OTLP `SpanKind` numbers: 0 unspecified, 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
export type SpanKind = 0 | 1 | 2 | 3 | 4 | 5;

/** OTLP `Status.code`: 0 unset, 1 ok, 2 error. */
export type StatusCode = 0 | 1 | 2;

/** A span event (Strands and Semantic Kernel carry tool calls in them). */
export interface SpanEventDigest {
  name: string;
  timeUnixNano: bigint;
  attributes: Attributes;
}

/**
 * The events of a span that has none, shared by the decoders' spans (most spans have no events):
 * frozen, so a caller that pushed to a span's events would throw rather than add to every span's.
 */
export const NO_EVENTS: SpanEventDigest[] = Object.freeze([]) as unknown as SpanEventDigest[];

/** One span, as spanscore keeps it. Ids are lower-case hex; `parentSpanId` is `''` for a root. */
export interface SpanDigest {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: SpanKind;
  startTimeUnixNano: bigint;
  endTimeUnixNano: bigint;
  attributes: Attributes;
  events: SpanEventDigest[];
  statusCode: StatusCode;
  statusMessage: string;
  /** The resource's `service.name`, or `unknown_service` when it has none (see `serviceNameOf`). */
  serviceName: string;
  /** The resource's `service.version`, or `''`. */
  serviceVersion: string;
  /** The resource's `deployment.environment.name` (or the older `deployment.environment`), or `''`. */
  deploymentEnvironment: string;
  /** The instrumentation scope's name, or `''`. */
  scopeName: string;
}

/** A span the decoder refused, with why and where. The rest of its request is kept. */
export interface RejectedSpan {
  path: string;
  reason: string;
}

/** What one decoded request yields: accepted spans and the spans refused one by one. */
export interface DecodedRequest {
  spans: SpanDigest[];
  /** The first refused spans, with why and where (at most `DecodeLimits.maxRejectedDetails`). */
  rejected: RejectedSpan[];
  /** Every refused span, those past the detailed ones included. */
  rejectedCount: number;
}

/**
 * Sets an attribute read from untrusted input, as {@link setOwnKey} sets any key: one named
 * `__proto__` becomes an ordinary own key.
 */
export function setAttribute(
  attributes: Record<string, AttributeValue>,
  key: string,
  value: AttributeValue,
): void {
  setOwnKey(attributes, key, value);
}

/**
 * A new, empty attributes object whose prototype chain holds no `Object.prototype`: what every
 * decoder and reader builds (OTLP protobuf and JSON, the span buffer, captured spans). No key read
 * back can reach `Object.prototype`, and reading a key a span lacks, which every extractor does
 * for most conventions, stays cheap: measured 8–19 ns a miss, against 200–280 ns on the plain
 * objects the decoders built before, where each miss went on into `Object.prototype`. It also
 * fills as fast as a plain object (the protobuf decoder measured 0.99–1.06× its old speed), where
 * `Object.create(null)` objects start as dictionaries and cost it 8–10%. With the extraction
 * changes made beside it, normalizing the bench's traces went from 13.5 to about 3 µs.
 */
export function emptyAttributes(): Attributes {
  return new (NoPrototypeAttributes as unknown as new () => Attributes)();
}

// Objects made by this constructor start in V8's fast mode (an object from Object.create(null)
// starts as a dictionary, slower to fill), and their prototype is an empty object without a
// prototype of its own: Object.prototype is not on the chain.
function NoPrototypeAttributes(): void {}
NoPrototypeAttributes.prototype = Object.create(null) as object;
