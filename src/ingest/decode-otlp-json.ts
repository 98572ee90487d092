import { SpanscoreError } from '../errors/spanscore-error.js';
import { DEFAULT_DECODE_LIMITS, tooManySpans, type DecodeLimits } from './decode-limits.js';
import { decodeAttributes } from './decode-json-attributes.js';
import { describe, field, isObject } from './json-field.js';
import { JsonItemReject } from './json-item-reject.js';
import type {
  DecodedRequest,
  RejectedSpan,
  SpanDigest,
  SpanEventDigest,
  SpanKind,
  StatusCode,
} from './span-digest.js';
import { resourceText } from './resource-text.js';
import { serviceNameOf } from './service-name-of.js';

const SPAN_KINDS: Record<string, SpanKind> = {
  SPAN_KIND_UNSPECIFIED: 0,
  SPAN_KIND_INTERNAL: 1,
  SPAN_KIND_SERVER: 2,
  SPAN_KIND_CLIENT: 3,
  SPAN_KIND_PRODUCER: 4,
  SPAN_KIND_CONSUMER: 5,
};
const STATUS_CODES: Record<string, StatusCode> = {
  STATUS_CODE_UNSET: 0,
  STATUS_CODE_OK: 1,
  STATUS_CODE_ERROR: 2,
};

/**
 * Decodes a parsed OTLP/JSON `ExportTraceServiceRequest` into span digests.
 *
 * Lenient where real emitters differ from the spec, as the OpenTelemetry Collector is:
 * lowerCamelCase or snake_case keys, enums as numbers or names (`SPAN_KIND_INTERNAL`), 64-bit
 * integers as strings or numbers, ids in hex (any case) or base64. Unknown fields are ignored.
 * A span with a bad id, time or attribute is rejected alone, with the path of the bad field;
 * a request that is not an `ExportTraceServiceRequest` at all throws `SS_TRACE_INPUT_INVALID`.
 * More than `limits.maxSpans` spans throws `SS_TRACE_INPUT_TOO_LARGE`; only the first
 * `limits.maxRejectedDetails` rejected spans are reported one by one. (Objects built by
 * `JSON.parse` already exist: check the text with `checkJsonItems` before parsing it.)
 */
export function decodeOtlpJson(
  request: unknown,
  limits: Readonly<DecodeLimits> = DEFAULT_DECODE_LIMITS,
): DecodedRequest {
  if (!isObject(request)) {
    throw new SpanscoreError(
      'SS_TRACE_INPUT_INVALID',
      `expected an ExportTraceServiceRequest object, got ${describe(request)}`,
    );
  }
  const spans: SpanDigest[] = [];
  const rejected: RejectedSpan[] = [];
  let rejectedCount = 0;
  const resourceSpans = field(request, 'resourceSpans', 'resource_spans');
  if (resourceSpans === undefined) return { spans, rejected, rejectedCount };
  if (!Array.isArray(resourceSpans)) {
    throw new SpanscoreError(
      'SS_TRACE_INPUT_INVALID',
      `expected an array, got ${describe(resourceSpans)}`,
      { location: { path: 'resourceSpans' } },
    );
  }
  resourceSpans.forEach((rs: unknown, r) => {
    const rPath = `resourceSpans[${r}]`;
    if (!isObject(rs)) {
      throw new SpanscoreError(
        'SS_TRACE_INPUT_INVALID',
        `expected an object, got ${describe(rs)}`,
        {
          location: { path: rPath },
        },
      );
    }
    const { serviceName, serviceVersion, deploymentEnvironment: environment } = resourceFacts(rs);
    const scopeSpans = field(rs, 'scopeSpans', 'scope_spans', 'instrumentationLibrarySpans');
    if (scopeSpans === undefined) return;
    if (!Array.isArray(scopeSpans)) {
      throw new SpanscoreError(
        'SS_TRACE_INPUT_INVALID',
        `expected an array, got ${describe(scopeSpans)}`,
        { location: { path: `${rPath}.scopeSpans` } },
      );
    }
    scopeSpans.forEach((ss: unknown, s) => {
      const sPath = `${rPath}.scopeSpans[${s}]`;
      if (!isObject(ss)) {
        throw new SpanscoreError(
          'SS_TRACE_INPUT_INVALID',
          `expected an object, got ${describe(ss)}`,
          { location: { path: sPath } },
        );
      }
      const scope = field(ss, 'scope', 'instrumentationLibrary');
      const scopeName =
        isObject(scope) && typeof scope.name === 'string' ? resourceText(scope.name) : '';
      const list = field(ss, 'spans');
      if (list === undefined) return;
      if (!Array.isArray(list)) {
        throw new SpanscoreError(
          'SS_TRACE_INPUT_INVALID',
          `expected an array, got ${describe(list)}`,
          { location: { path: `${sPath}.spans` } },
        );
      }
      list.forEach((span: unknown, i) => {
        if (spans.length + rejectedCount >= limits.maxSpans) throw tooManySpans(limits);
        try {
          const digest = decodeSpan(span, serviceName, scopeName);
          digest.serviceVersion = serviceVersion;
          digest.deploymentEnvironment = environment;
          spans.push(digest);
        } catch (error) {
          if (!(error instanceof JsonItemReject)) throw error;
          if (rejectedCount++ >= limits.maxRejectedDetails) return;
          const path = `${sPath}.spans[${i}]`;
          rejected.push({
            path: error.field ? `${path}.${error.field}` : path,
            reason: error.message,
          });
        }
      });
    });
  });
  return { spans, rejected, rejectedCount };
}

/**
 * A JSON object that is no trace export: nothing of `resourceSpans` in any spelling. It decodes
 * as an empty export (as the protobuf JSON mapping reads it), which is also what any other JSON
 * object looks like, so the receiver and the file reader say so.
 */
export function isNotTraceExport(parsed: unknown): parsed is Record<string, unknown> {
  return (
    typeof parsed === 'object' &&
    parsed !== null &&
    !Array.isArray(parsed) &&
    !('resourceSpans' in parsed) &&
    !('resource_spans' in parsed)
  );
}

/** What a span digest carries of a `resourceSpans` (or `resourceLogs`) entry's resource. */
export function resourceFacts(rs: Record<string, unknown>): {
  serviceName: string;
  serviceVersion: string;
  deploymentEnvironment: string;
} {
  const resource = field(rs, 'resource');
  const facts: Record<string, string> = {};
  if (isObject(resource)) {
    const attrs = field(resource, 'attributes');
    if (Array.isArray(attrs)) {
      for (const kv of attrs) {
        if (
          isObject(kv) &&
          typeof kv.key === 'string' &&
          RESOURCE_KEYS.has(kv.key) &&
          isObject(kv.value)
        ) {
          const v = field(kv.value, 'stringValue', 'string_value');
          if (typeof v === 'string') facts[kv.key] = v;
        }
      }
    }
  }
  return {
    serviceName: serviceNameOf(facts['service.name']),
    serviceVersion: resourceText(facts['service.version'] ?? ''),
    deploymentEnvironment: resourceText(
      facts['deployment.environment.name'] ?? facts['deployment.environment'] ?? '',
    ),
  };
}

/** The resource attributes a span digest carries. */
const RESOURCE_KEYS: ReadonlySet<string> = new Set([
  'service.name',
  'service.version',
  'deployment.environment.name',
  'deployment.environment',
]);

function decodeSpan(span: unknown, serviceName: string, scopeName: string): SpanDigest {
  if (!isObject(span))
    throw new JsonItemReject('', `expected a span object, got ${describe(span)}`);
  const traceId = decodeId(field(span, 'traceId', 'trace_id'), 16, 'traceId', true);
  const spanId = decodeId(field(span, 'spanId', 'span_id'), 8, 'spanId', true);
  const parentSpanId = decodeId(field(span, 'parentSpanId', 'parent_span_id'), 8, 'parentSpanId');
  const name = field(span, 'name') ?? '';
  if (typeof name !== 'string')
    throw new JsonItemReject('name', `expected a string, got ${describe(name)}`);
  const status = field(span, 'status');
  let statusCode: StatusCode = 0;
  let statusMessage = '';
  if (isObject(status)) {
    statusCode = decodeEnum(field(status, 'code'), STATUS_CODES, 2, 'status.code') as StatusCode;
    const message = field(status, 'message');
    if (typeof message === 'string') statusMessage = message;
  }
  return {
    traceId,
    spanId,
    parentSpanId,
    name,
    kind: decodeEnum(field(span, 'kind'), SPAN_KINDS, 5, 'kind') as SpanKind,
    startTimeUnixNano: decodeNanos(
      field(span, 'startTimeUnixNano', 'start_time_unix_nano'),
      'startTimeUnixNano',
    ),
    endTimeUnixNano: decodeNanos(
      field(span, 'endTimeUnixNano', 'end_time_unix_nano'),
      'endTimeUnixNano',
    ),
    attributes: decodeAttributes(field(span, 'attributes'), 'attributes'),
    events: decodeEvents(field(span, 'events')),
    statusCode,
    statusMessage,
    serviceName,
    scopeName,
    serviceVersion: '',
    deploymentEnvironment: '',
  };
}

function decodeEvents(events: unknown): SpanEventDigest[] {
  if (events === undefined || events === null) return [];
  if (!Array.isArray(events))
    throw new JsonItemReject('events', `expected an array, got ${describe(events)}`);
  return events.map((event: unknown, i) => {
    const path = `events[${i}]`;
    if (!isObject(event))
      throw new JsonItemReject(path, `expected an object, got ${describe(event)}`);
    const name = field(event, 'name') ?? '';
    if (typeof name !== 'string') throw new JsonItemReject(`${path}.name`, 'expected a string');
    return {
      name,
      timeUnixNano: decodeNanos(
        field(event, 'timeUnixNano', 'time_unix_nano'),
        `${path}.timeUnixNano`,
      ),
      attributes: decodeAttributes(field(event, 'attributes'), `${path}.attributes`),
    };
  });
}

const HEX = /^[0-9a-fA-F]*$/;
const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

export function decodeId(value: unknown, bytes: number, name: string, required = false): string {
  if (value === undefined || value === null || value === '') {
    if (required) throw new JsonItemReject(name, 'is missing');
    return '';
  }
  if (typeof value !== 'string')
    throw new JsonItemReject(name, `expected a hex string, got ${describe(value)}`);
  if (value.length === bytes * 2 && HEX.test(value)) {
    const id = value.toLowerCase();
    if (/^0+$/.test(id)) {
      if (required) throw new JsonItemReject(name, 'is all zeros, which OTLP defines as invalid');
      return '';
    }
    return id;
  }
  // Proto3's own JSON mapping writes bytes as base64; some tools send that instead of hex.
  if (BASE64.test(value) && value.length === Math.ceil(bytes / 3) * 4) {
    const buffer = Buffer.from(value, 'base64');
    if (buffer.length === bytes) return decodeId(buffer.toString('hex'), bytes, name, required);
  }
  throw new JsonItemReject(
    name,
    `expected ${bytes * 2} hex characters, got ${JSON.stringify(value.slice(0, 80))}`,
  );
}

function decodeEnum(
  value: unknown,
  names: Record<string, number>,
  max: number,
  name: string,
): number {
  if (value === undefined || value === null) return 0;
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= max)
    return value;
  if (typeof value === 'string') {
    // Accept the full enum name (`SPAN_KIND_CLIENT`) and the short one (`CLIENT`, `client`).
    const upper = value.toUpperCase();
    for (const [full, number] of Object.entries(names)) {
      if (full === upper || full.endsWith(`_${upper}`)) return number;
    }
  }
  throw new JsonItemReject(
    name,
    `expected one of ${Object.keys(names).join(', ')} or 0..${max}, got ${describe(value)}`,
  );
}

const DIGITS = /^\d{1,20}$/;

/**
 * The largest time read, in either form: 2^64 − 1025. `JSON.parse` gives a number from 2^64 − 1024
 * up as 2^64 (the nearest double; below it the doubles are 2,048 apart), so a number there cannot
 * be told from 2^64 and is refused; the text form, read exactly, is held to the same bound, so the
 * two forms agree on every value (2^64 − 1 was refused as a number and taken as text).
 */
const MAX_NANOS = 2n ** 64n - 1025n;

/**
 * A time (`…TimeUnixNano`), as a JSON number or a string of digits, at most 2^64 − 1025 in either
 * form (see `MAX_NANOS`). A number past 2^53 is the inexact integer JSON gives, kept as far as it
 * fits a fixed64; 2^64 and 1e300 are refused, not carried on as 65- and 997-bit times that the
 * span batch codec's fixed64 cannot write.
 */
export function decodeNanos(value: unknown, name: string): bigint {
  if (value === undefined || value === null) return 0n;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
  if (
    typeof value === 'number' &&
    Number.isFinite(value) &&
    value >= 0 &&
    Number.isInteger(value)
  ) {
    const n = BigInt(value);
    if (n <= MAX_NANOS) return n;
  }
  if (typeof value === 'string' && DIGITS.test(value)) {
    const n = BigInt(value);
    if (n <= MAX_NANOS) return n;
  }
  throw new JsonItemReject(
    name,
    `expected an unsigned 64-bit integer below 2^64 - 1024 (string or number), got ${describe(value)}`,
  );
}
