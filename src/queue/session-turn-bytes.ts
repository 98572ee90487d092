import type { AttributeValue, SpanDigest } from '../ingest/span-digest.js';

/** What one span costs beyond its strings and attributes: the object, its ids, its bigints. */
const SPAN_OVERHEAD = 160;
/** What one attribute (or event) costs beyond its key and value: the property slot. */
const ENTRY_OVERHEAD = 16;

/**
 * The bytes a held session turn costs, counted from its spans: every string by its length (V8
 * keeps ASCII text a byte a character), numbers and booleans 8, plus a fixed cost per span,
 * attribute and event. An estimate of the heap it holds, the same for the same spans; what
 * `sessions.maxSessionBytes` and `sessions.maxBytes` bound. Walks each value once, nested values
 * to any depth (a decoded value's depth is bounded by the decoder). Pure.
 */
export function sessionTurnBytes(spans: readonly SpanDigest[]): number {
  let bytes = 0;
  for (const span of spans) {
    bytes +=
      SPAN_OVERHEAD +
      span.name.length +
      span.statusMessage.length +
      span.serviceName.length +
      span.serviceVersion.length +
      span.deploymentEnvironment.length +
      span.scopeName.length +
      attributesBytes(span.attributes);
    for (const event of span.events)
      bytes += ENTRY_OVERHEAD + event.name.length + attributesBytes(event.attributes);
  }
  return bytes;
}

function attributesBytes(attributes: Readonly<Record<string, AttributeValue>>): number {
  let bytes = 0;
  for (const key in attributes)
    bytes += ENTRY_OVERHEAD + key.length + valueBytes(attributes[key] as AttributeValue);
  return bytes;
}

function valueBytes(value: AttributeValue): number {
  if (typeof value === 'string') return value.length;
  if (value === null || typeof value !== 'object') return 8;
  if (Array.isArray(value)) {
    let bytes = 0;
    for (const item of value) bytes += ENTRY_OVERHEAD + valueBytes(item);
    return bytes;
  }
  return attributesBytes(value);
}
