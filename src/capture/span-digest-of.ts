import type {
  AttributeValue as OtelAttributeValue,
  Attributes as OtelAttributes,
} from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import {
  emptyAttributes,
  setAttribute,
  type Attributes,
  type SpanDigest,
  type SpanKind,
} from '../ingest/span-digest.js';
import { serviceNameOf } from '../ingest/service-name-of.js';

/**
 * A span finished by the OpenTelemetry SDK, as spanscore's span model: what the OTLP decoders
 * would produce from the same span after an export, without the round trip. SDK span kinds are
 * OTLP's minus one; `undefined` attribute values (the SDK allows them in arrays) become `null`.
 */
export function spanDigestOf(span: ReadableSpan): SpanDigest {
  const { traceId, spanId } = span.spanContext();
  return {
    traceId,
    spanId,
    parentSpanId: span.parentSpanContext?.spanId ?? '',
    name: span.name,
    kind: (span.kind + 1) as SpanKind,
    startTimeUnixNano: nanos(span.startTime),
    endTimeUnixNano: nanos(span.endTime),
    attributes: attributesOf(span.attributes),
    events: span.events.map(e => ({
      name: e.name,
      timeUnixNano: nanos(e.time),
      attributes: attributesOf(e.attributes ?? {}),
    })),
    statusCode: span.status.code,
    statusMessage: span.status.message ?? '',
    ...resourceFactsOf(span.resource.attributes),
    scopeName: span.instrumentationScope.name,
  };
}

/** What a span digest carries of an SDK resource: its service, version and environment. */
export function resourceFactsOf(
  resource: OtelAttributes,
): Pick<SpanDigest, 'serviceName' | 'serviceVersion' | 'deploymentEnvironment'> {
  const text = (key: string): string => {
    const value = resource[key];
    return typeof value === 'string' ? value : '';
  };
  return {
    serviceName: serviceNameOf(text('service.name')),
    serviceVersion: text('service.version'),
    deploymentEnvironment: text('deployment.environment.name') || text('deployment.environment'),
  };
}

/** An SDK `HrTime` (`[seconds, nanoseconds]`) in Unix nanoseconds. */
export function nanos([seconds, nanoseconds]: readonly [number, number]): bigint {
  return BigInt(seconds) * 1_000_000_000n + BigInt(nanoseconds);
}

function attributesOf(attributes: OtelAttributes): Attributes {
  const out = emptyAttributes();
  for (const [key, value] of Object.entries(attributes)) {
    if (value !== undefined) setAttribute(out, key, valueOf(value));
  }
  return out;
}

function valueOf(value: OtelAttributeValue): AttributeValue {
  if (Array.isArray(value)) return value.map(v => (v === undefined ? null : v));
  return value;
}

type AttributeValue = Attributes[string];
