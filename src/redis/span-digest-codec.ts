import type { SpanDigest } from '../ingest/span-digest.js';

/**
 * Span digests as JSON, with the 64-bit nanosecond times as decimal strings (JSON numbers would
 * lose precision past 2^53). The format of the span buffer and judge jobs before
 * `encodeSpanBatch`; still read, so entries written before an upgrade are not lost.
 */
export function encodeSpanDigest(span: SpanDigest): string {
  return JSON.stringify({
    ...span,
    startTimeUnixNano: span.startTimeUnixNano.toString(),
    endTimeUnixNano: span.endTimeUnixNano.toString(),
    events: span.events.map(e => ({ ...e, timeUnixNano: e.timeUnixNano.toString() })),
  });
}

/** The inverse of {@link encodeSpanDigest}. Throws on text it did not write. */
export function decodeSpanDigest(text: string): SpanDigest {
  const raw = JSON.parse(text) as Omit<
    SpanDigest,
    'startTimeUnixNano' | 'endTimeUnixNano' | 'events' | 'serviceVersion' | 'deploymentEnvironment'
  > &
    Partial<Pick<SpanDigest, 'serviceVersion' | 'deploymentEnvironment'>> & {
      startTimeUnixNano: string;
      endTimeUnixNano: string;
      events: Array<Omit<SpanDigest['events'][number], 'timeUnixNano'> & { timeUnixNano: string }>;
    };
  return {
    // The JSON digests of earlier releases have no service version or environment.
    serviceVersion: '',
    deploymentEnvironment: '',
    ...raw,
    startTimeUnixNano: BigInt(raw.startTimeUnixNano),
    endTimeUnixNano: BigInt(raw.endTimeUnixNano),
    events: raw.events.map(e => ({ ...e, timeUnixNano: BigInt(e.timeUnixNano) })),
  };
}
