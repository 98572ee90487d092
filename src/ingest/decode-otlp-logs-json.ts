import { SpanscoreError } from '../errors/spanscore-error.js';
import { DEFAULT_DECODE_LIMITS, tooManyLogRecords, type DecodeLimits } from './decode-limits.js';
import { decodeAnyValue, decodeAttributes } from './decode-json-attributes.js';
import { decodeId, decodeNanos, resourceFacts } from './decode-otlp-json.js';
import { resourceText } from './resource-text.js';
import { describe, field, isObject } from './json-field.js';
import { JsonItemReject } from './json-item-reject.js';
import { logEventCarrier, logRecordDrop, noDrops, type DecodedLogs } from './log-event-carrier.js';

/**
 * Decodes a parsed OTLP/JSON `ExportLogsServiceRequest`, keeping the GenAI events as carriers
 * (see `log-event-carrier.ts`) and counting every other record as dropped, by why.
 *
 * The event name is the record's `eventName` (OTLP 1.5+) or its `event.name` attribute (older
 * SDKs); a record that is no GenAI event is dropped before its body or attributes are decoded.
 * Lenient as the trace decoder is (camelCase or snake_case keys, hex or base64 ids, 64-bit
 * integers as strings or numbers). A kept record with a malformed id, time or attribute is
 * refused alone, with the path of the bad field; a body that is no `ExportLogsServiceRequest`
 * throws `SS_TRACE_INPUT_INVALID`; more than `limits.maxSpans` records throws
 * `SS_TRACE_INPUT_TOO_LARGE`.
 */
export function decodeOtlpJsonLogs(
  request: unknown,
  limits: Readonly<DecodeLimits> = DEFAULT_DECODE_LIMITS,
): DecodedLogs {
  if (!isObject(request)) {
    throw new SpanscoreError(
      'SS_TRACE_INPUT_INVALID',
      `expected an ExportLogsServiceRequest object, got ${describe(request)}`,
    );
  }
  const out: DecodedLogs = {
    spans: [],
    rejected: [],
    rejectedCount: 0,
    records: 0,
    dropped: noDrops(),
  };
  const resourceLogs = field(request, 'resourceLogs', 'resource_logs');
  if (resourceLogs === undefined) return out;
  arrayAt(resourceLogs, 'resourceLogs').forEach((rl: unknown, r) => {
    const rPath = `resourceLogs[${r}]`;
    const resource = objectAt(rl, rPath);
    const facts = resourceFacts(resource);
    const scopeLogs = field(resource, 'scopeLogs', 'scope_logs');
    if (scopeLogs === undefined) return;
    arrayAt(scopeLogs, `${rPath}.scopeLogs`).forEach((sl: unknown, s) => {
      const sPath = `${rPath}.scopeLogs[${s}]`;
      const scopeLog = objectAt(sl, sPath);
      const scope = field(scopeLog, 'scope');
      const scopeName =
        isObject(scope) && typeof scope.name === 'string' ? resourceText(scope.name) : '';
      const records = field(scopeLog, 'logRecords', 'log_records');
      if (records === undefined) return;
      arrayAt(records, `${sPath}.logRecords`).forEach((record: unknown, i) => {
        if (out.records++ >= limits.maxSpans) throw tooManyLogRecords(limits);
        try {
          if (!isObject(record))
            throw new JsonItemReject('', `expected a log record object, got ${describe(record)}`);
          const eventName = eventNameOf(record);
          const drop = logRecordDrop(eventName);
          if (drop) {
            out.dropped[drop]++;
            return;
          }
          const traceId = decodeId(field(record, 'traceId', 'trace_id'), 16, 'traceId');
          if (traceId === '') {
            out.dropped.no_trace_id++;
            return;
          }
          const time = decodeNanos(field(record, 'timeUnixNano', 'time_unix_nano'), 'timeUnixNano');
          const body = field(record, 'body');
          out.spans.push(
            logEventCarrier(
              {
                traceId,
                spanId: decodeId(field(record, 'spanId', 'span_id'), 8, 'spanId'),
                eventName,
                timeUnixNano:
                  time ||
                  decodeNanos(
                    field(record, 'observedTimeUnixNano', 'observed_time_unix_nano'),
                    'observedTimeUnixNano',
                  ),
                attributes: decodeAttributes(field(record, 'attributes'), 'attributes'),
                body: body === undefined ? undefined : decodeAnyValue(body, 'body', 0),
                ...facts,
                scopeName,
              },
              JSON.stringify(record),
            ),
          );
        } catch (error) {
          if (!(error instanceof JsonItemReject)) throw error;
          if (out.rejectedCount++ >= limits.maxRejectedDetails) return;
          const path = `${sPath}.logRecords[${i}]`;
          out.rejected.push({
            path: error.field ? `${path}.${error.field}` : path,
            reason: error.message,
          });
        }
      });
    });
  });
  return out;
}

/**
 * A JSON object that is no logs export: nothing of `resourceLogs` in any spelling (it reads as an
 * empty export, as any other JSON object would).
 */
export function isNotLogsExport(parsed: unknown): parsed is Record<string, unknown> {
  return isObject(parsed) && !('resourceLogs' in parsed) && !('resource_logs' in parsed);
}

/** The record's `eventName`, else its `event.name` attribute, else `''`; nothing else decoded. */
function eventNameOf(record: Record<string, unknown>): string {
  const name = field(record, 'eventName', 'event_name');
  if (typeof name === 'string' && name !== '') return name;
  const attributes = field(record, 'attributes');
  if (!Array.isArray(attributes)) return '';
  for (const kv of attributes as unknown[]) {
    if (isObject(kv) && kv.key === 'event.name' && isObject(kv.value)) {
      const value = field(kv.value, 'stringValue', 'string_value');
      return typeof value === 'string' ? value : '';
    }
  }
  return '';
}

function arrayAt(value: unknown, path: string): unknown[] {
  if (Array.isArray(value)) return value;
  throw new SpanscoreError('SS_TRACE_INPUT_INVALID', `expected an array, got ${describe(value)}`, {
    location: { path },
  });
}

function objectAt(value: unknown, path: string): Record<string, unknown> {
  if (isObject(value)) return value;
  throw new SpanscoreError('SS_TRACE_INPUT_INVALID', `expected an object, got ${describe(value)}`, {
    location: { path },
  });
}
