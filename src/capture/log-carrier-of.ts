import type { AnyValue } from '@opentelemetry/api-logs';
import type { ReadableLogRecord } from '@opentelemetry/sdk-logs';
import { logEventCarrier, logRecordDrop } from '../ingest/log-event-carrier.js';
import {
  emptyAttributes,
  setAttribute,
  type AttributeValue,
  type Attributes,
  type SpanDigest,
} from '../ingest/span-digest.js';
import { nanos, resourceFactsOf } from './span-digest-of.js';

/**
 * A log record emitted through the OpenTelemetry logs SDK, as the receiver would keep it after an
 * export: the carrier of a GenAI event of its trace (see `log-event-carrier.ts`), or `undefined`
 * for any other record (no `gen_ai.*` event name, an evaluation result, no trace). Byte values
 * become base64, as the OTLP decoders give them; `undefined` becomes `null`.
 */
export function logCarrierOf(record: ReadableLogRecord): SpanDigest | undefined {
  const attributes = anyMap(record.attributes);
  const named = attributes['event.name'];
  const eventName = record.eventName ?? (typeof named === 'string' ? named : '');
  const traceId = record.spanContext?.traceId ?? '';
  if (logRecordDrop(eventName) || !/^[0-9a-f]{32}$/.test(traceId) || /^0+$/.test(traceId))
    return undefined;
  const spanId = record.spanContext?.spanId ?? '';
  const time = record.hrTime[0] || record.hrTime[1] ? record.hrTime : record.hrTimeObserved;
  const body = record.body === undefined ? undefined : anyValue(record.body);
  const timeUnixNano = nanos(time);
  return logEventCarrier(
    {
      traceId,
      spanId: /^0+$/.test(spanId) ? '' : spanId,
      eventName,
      timeUnixNano,
      attributes,
      body,
      ...resourceFactsOf(record.resource.attributes),
      scopeName: record.instrumentationScope.name,
    },
    JSON.stringify([spanId, eventName, String(timeUnixNano), body ?? null, attributes]),
  );
}

function anyMap(map: Record<string, AnyValue>): Attributes {
  const out = emptyAttributes();
  for (const [key, value] of Object.entries(map)) setAttribute(out, key, anyValue(value));
  return out;
}

function anyValue(value: AnyValue): AttributeValue {
  if (value === undefined || value === null) return null;
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  if (Array.isArray(value)) return value.map(anyValue);
  if (typeof value === 'object') return anyMap(value);
  return value;
}
