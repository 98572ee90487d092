// The receiver's decode limits and their defaults: what `receiver` settings state
// (config-schema) and what the OTLP decoders apply when called without limits (`src/ingest`),
// defined here, below both, so src/config imports nothing from ingest (.dependency-cruiser.cjs).

/**
 * What one OTLP request may cost to decode. Checked while decoding, so an amplified body (a few
 * kilobytes of gzip that unpack to millions of empty spans or attributes) is refused after a
 * bounded amount of work instead of being expanded into memory. The same limits apply to the
 * receiver's requests and to each request read from a file offline.
 */
export interface DecodeLimits {
  /**
   * Spans in one request, accepted and rejected alike (log records in a logs request, kept or
   * dropped alike); more is `SS_TRACE_INPUT_TOO_LARGE` (413).
   */
  maxSpans: number;
  /**
   * Nested items in one request: resources, scopes, spans, events, attributes and each value
   * inside an array or key-value list attribute (protobuf); objects, arrays, the other elements
   * of arrays and members of an object past its 64th (JSON, counted before parsing). More is
   * `SS_TRACE_INPUT_TOO_LARGE` (413).
   */
  maxItems: number;
  /** Rejected spans reported one by one (path and reason); the rest are only counted. */
  maxRejectedDetails: number;
}

/** The largest request body, compressed or not, by default (the OTLP specification's 64 MiB). */
export const DEFAULT_MAX_BODY_BYTES = 64 * 1024 * 1024;

/**
 * The defaults: 16,384 spans (twice an OpenTelemetry Collector batch, 32 SDK batches), a million
 * items (about 60 per span at the span limit; a typical agent span has 20–40), 20 reasons. At
 * the decoder's measured rate a request at these limits decodes in a few tens of milliseconds.
 */
export const DEFAULT_DECODE_LIMITS: Readonly<DecodeLimits> = {
  maxSpans: 16_384,
  maxItems: 1_000_000,
  maxRejectedDetails: 20,
};
