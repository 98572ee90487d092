import { createHash } from 'node:crypto';
import type { AttributeValue, Attributes, DecodedRequest, SpanDigest } from './span-digest.js';
import { emptyAttributes, setAttribute } from './span-digest.js';

/**
 * GenAI log records (the OpenTelemetry logs signal) as spanscore keeps them: each record that is
 * a GenAI event becomes a *carrier*, a zero-length span digest of its trace, so both queue drivers
 * buffer, count, persist and time out log events exactly as they do spans, with no second store.
 * At normalization `joinLogEvents` turns carriers back into span events of the span each names
 * (else of the root), so extractors read one shape whatever signal carried a message.
 *
 * A carrier:
 * - `name` is the event name; `kind` INTERNAL; start and end the record's time;
 * - `parentSpanId` is the record's span id, or {@link NO_SPAN_ID} when it names no span (never
 *   `''`: a carrier must never look like the root that ends a trace);
 * - `spanId` is derived from the record's bytes and its trace id: a record sent twice (an exporter
 *   retrying) is one carrier, so one event;
 * - `attributes` are the record's, with its body under `body` and the marker
 *   {@link LOG_RECORD_ATTRIBUTE} = `true`.
 */

/** The marker attribute of a carrier. A span that sets it itself is read as a log event too. */
export const LOG_RECORD_ATTRIBUTE = 'spanscore.log_record';

/** The parent of a carrier whose record names no span: OTLP's invalid all-zero span id. */
export const NO_SPAN_ID = '0000000000000000';

/** Why a log record was not kept: counted in `spanscore_log_records_dropped_total{reason}`. */
export type LogRecordDrop = 'not_gen_ai' | 'evaluation' | 'no_trace_id';

/**
 * Whether a record with this event name is kept: GenAI events (`gen_ai.*`: the message, choice
 * and operation-details events) are, except evaluation results (`gen_ai.evaluation.*`: what
 * evaluators, spanscore included, write, not what an agent did).
 */
export function logRecordDrop(eventName: string): LogRecordDrop | undefined {
  if (!eventName.startsWith('gen_ai.')) return 'not_gen_ai';
  if (eventName.startsWith('gen_ai.evaluation.')) return 'evaluation';
  return undefined;
}

/**
 * What one decoded logs request yields: the carriers of its kept records (as `spans`), the
 * records refused one by one (a malformed id or time), and how many were dropped, by why.
 */
export interface DecodedLogs extends DecodedRequest {
  /** Every record in the request: kept, refused and dropped. */
  records: number;
  dropped: Record<LogRecordDrop, number>;
}

/** A fresh count of dropped records. */
export function noDrops(): Record<LogRecordDrop, number> {
  return { not_gen_ai: 0, evaluation: 0, no_trace_id: 0 };
}

/** What a decoder read of one kept record. */
export interface LogRecordFacts {
  traceId: string;
  /** `''` when the record names no span. */
  spanId: string;
  eventName: string;
  timeUnixNano: bigint;
  attributes: Attributes;
  body: AttributeValue | undefined;
  serviceName: string;
  serviceVersion: string;
  deploymentEnvironment: string;
  scopeName: string;
}

/** The carrier of a kept record; `identity` is the record as received (its bytes, or its JSON). */
export function logEventCarrier(facts: LogRecordFacts, identity: Uint8Array | string): SpanDigest {
  const attributes = emptyAttributes();
  for (const key of Object.keys(facts.attributes))
    setAttribute(attributes, key, facts.attributes[key]!);
  if (facts.body !== undefined) setAttribute(attributes, 'body', facts.body);
  attributes[LOG_RECORD_ATTRIBUTE] = true;
  return {
    traceId: facts.traceId,
    spanId: carrierSpanId(facts.traceId, identity),
    parentSpanId: facts.spanId || NO_SPAN_ID,
    name: facts.eventName,
    kind: 1,
    startTimeUnixNano: facts.timeUnixNano,
    endTimeUnixNano: facts.timeUnixNano,
    attributes,
    events: [],
    statusCode: 0,
    statusMessage: '',
    serviceName: facts.serviceName,
    serviceVersion: facts.serviceVersion,
    deploymentEnvironment: facts.deploymentEnvironment,
    scopeName: facts.scopeName,
  };
}

/** True for a carrier: a log record kept as a span digest. */
export function isLogEventCarrier(span: SpanDigest): boolean {
  return span.attributes[LOG_RECORD_ATTRIBUTE] === true;
}

function carrierSpanId(traceId: string, identity: Uint8Array | string): string {
  const id = createHash('sha1').update(traceId).update(identity).digest('hex').slice(0, 16);
  // An all-zero id is invalid in OTLP; 2^-64 of records would get one.
  return id === NO_SPAN_ID ? '0000000000000001' : id;
}
