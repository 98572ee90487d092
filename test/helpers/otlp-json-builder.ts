/**
 * Builds OTLP/JSON `ExportTraceServiceRequest` objects for tests and hand-built fixtures.
 * Attribute values are typed from the JS value: string → stringValue, integer → intValue (as a
 * string, as the spec writes int64), other number → doubleValue, boolean → boolValue, array →
 * arrayValue, object → kvlistValue.
 */
export type AttrInput = string | number | boolean | AttrInput[] | { [key: string]: AttrInput };

export interface SpanInput {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind?: number;
  /** Milliseconds after the trace's epoch; converted to nanoseconds. */
  startMs: number;
  endMs: number;
  attributes?: Record<string, AttrInput>;
  events?: Array<{ name: string; atMs: number; attributes?: Record<string, AttrInput> }>;
  status?: { code: number; message?: string };
  service?: string;
  /** Resource attributes besides `service.name` (`service.version`, …). */
  resource?: Record<string, string>;
  scope?: string;
}

const EPOCH_NS = 1_767_225_600_000_000_000n; // 2026-01-01T00:00:00Z

export function anyValue(v: AttrInput): Record<string, unknown> {
  if (typeof v === 'string') return { stringValue: v };
  if (typeof v === 'boolean') return { boolValue: v };
  if (typeof v === 'number')
    return Number.isInteger(v) ? { intValue: String(v) } : { doubleValue: v };
  if (Array.isArray(v)) return { arrayValue: { values: v.map(anyValue) } };
  return {
    kvlistValue: {
      values: Object.entries(v).map(([key, value]) => ({ key, value: anyValue(value) })),
    },
  };
}

function attrs(
  a: Record<string, AttrInput> = {},
): Array<{ key: string; value: Record<string, unknown> }> {
  return Object.entries(a).map(([key, value]) => ({ key, value: anyValue(value) }));
}

const nanos = (ms: number): string => (EPOCH_NS + BigInt(Math.round(ms * 1_000_000))).toString();

/** One OTLP span object. */
export function otlpSpan(s: SpanInput): Record<string, unknown> {
  return {
    traceId: s.traceId,
    spanId: s.spanId,
    ...(s.parentSpanId && { parentSpanId: s.parentSpanId }),
    name: s.name,
    kind: s.kind ?? 1,
    startTimeUnixNano: nanos(s.startMs),
    endTimeUnixNano: nanos(s.endMs),
    attributes: attrs(s.attributes),
    events: (s.events ?? []).map(e => ({
      name: e.name,
      timeUnixNano: nanos(e.atMs),
      attributes: attrs(e.attributes),
    })),
    status: s.status ?? { code: 0 },
  };
}

/** A request holding the spans, grouped by service and scope as exporters do. */
export function otlpRequest(spans: SpanInput[]): { resourceSpans: unknown[] } {
  // Keyed by the resource's attributes as JSON: one resource per distinct service and attributes.
  const byResource = new Map<string, Map<string, SpanInput[]>>();
  for (const s of spans) {
    const resource = JSON.stringify({ 'service.name': s.service ?? 'test-service', ...s.resource });
    const scope = s.scope ?? 'test-scope';
    let scopes = byResource.get(resource);
    if (!scopes) byResource.set(resource, (scopes = new Map()));
    scopes.set(scope, [...(scopes.get(scope) ?? []), s]);
  }
  return {
    resourceSpans: [...byResource].map(([resource, scopes]) => ({
      resource: { attributes: attrs(JSON.parse(resource) as Record<string, string>) },
      scopeSpans: [...scopes].map(([scope, list]) => ({
        scope: { name: scope },
        spans: list.map(otlpSpan),
      })),
    })),
  };
}

/** Deterministic ids: `traceId(3)` → 32 hex chars, `spanId(3, 2)` → 16 hex chars. */
export const traceId = (n: number): string => n.toString(16).padStart(32, '0').replace(/^0/, 'a');
export const spanId = (t: number, n: number): string =>
  `${t.toString(16).padStart(8, '0')}${n.toString(16).padStart(8, '0')}`.replace(/^0/, 'b');

/** One OTLP log record, for a logs request (`otlpLogsRequest`). */
export interface LogInput {
  traceId?: string;
  spanId?: string;
  /** The record's `eventName` field; older SDKs put it in the `event.name` attribute instead. */
  eventName?: string;
  atMs: number;
  body?: AttrInput;
  attributes?: Record<string, AttrInput>;
  service?: string;
  scope?: string;
}

/** An OTLP/JSON `ExportLogsServiceRequest` holding the records, grouped by service and scope. */
export function otlpLogsRequest(records: LogInput[]): { resourceLogs: unknown[] } {
  const byService = new Map<string, Map<string, LogInput[]>>();
  for (const r of records) {
    const service = r.service ?? 'test-service';
    const scope = r.scope ?? 'test-scope';
    let scopes = byService.get(service);
    if (!scopes) byService.set(service, (scopes = new Map()));
    scopes.set(scope, [...(scopes.get(scope) ?? []), r]);
  }
  return {
    resourceLogs: [...byService].map(([service, scopes]) => ({
      resource: { attributes: attrs({ 'service.name': service }) },
      scopeLogs: [...scopes].map(([scope, list]) => ({
        scope: { name: scope },
        logRecords: list.map(r => ({
          timeUnixNano: nanos(r.atMs),
          observedTimeUnixNano: nanos(r.atMs),
          severityNumber: 9,
          ...(r.eventName && { eventName: r.eventName }),
          ...(r.body !== undefined && { body: anyValue(r.body) }),
          attributes: attrs(r.attributes),
          ...(r.traceId && { traceId: r.traceId }),
          ...(r.spanId && { spanId: r.spanId }),
        })),
      })),
    })),
  };
}

/**
 * `count` one-span traces from trace number `first` (each span its trace's root, lasting 1 ms),
 * as spans for {@link otlpRequest}: the burst an exporter sends of many small traces.
 */
export function oneSpanTraces(
  first: number,
  count: number,
  { name = 'root', service }: { name?: string; service?: string } = {},
): SpanInput[] {
  return Array.from({ length: count }, (_, i) => ({
    traceId: traceId(first + i),
    spanId: spanId(first + i, 1),
    name,
    startMs: 0,
    endMs: 1,
    ...(service !== undefined && { service }),
  }));
}
