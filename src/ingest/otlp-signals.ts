import type { DecodeLimits } from './decode-limits.js';
import { decodeOtlpJson, isNotTraceExport } from './decode-otlp-json.js';
import { decodeOtlpJsonLogs, isNotLogsExport } from './decode-otlp-logs-json.js';
import { decodeOtlpProtobufLogs } from './decode-otlp-logs-protobuf.js';
import { decodeOtlpProtobuf } from './decode-otlp-protobuf.js';
import type { DecodedLogs } from './log-event-carrier.js';
import type { ReceiverMetrics } from './receiver-metrics.js';
import type { DecodedRequest } from './span-digest.js';

/** What differs between the two signals the receiver reads. */
export interface Signal {
  name: 'traces' | 'logs';
  path: '/v1/traces' | '/v1/logs';
  /** The request's top-level field, for the warning about JSON that is no export. */
  field: 'resourceSpans' | 'resourceLogs';
  noun: 'span' | 'log record';
  decodeProtobuf(body: Buffer, limits: Readonly<DecodeLimits>): DecodedRequest;
  decodeJson(parsed: unknown, limits: Readonly<DecodeLimits>): DecodedRequest;
  isNotExport(parsed: unknown): parsed is Record<string, unknown>;
  /** Counts an accepted request's items, `refused` of them not kept by the sink. */
  count(metrics: ReceiverMetrics, decoded: DecodedRequest, refused: number): void;
}

export const TRACES: Signal = {
  name: 'traces',
  path: '/v1/traces',
  field: 'resourceSpans',
  noun: 'span',
  decodeProtobuf: decodeOtlpProtobuf,
  decodeJson: decodeOtlpJson,
  isNotExport: isNotTraceExport,
  count(metrics, decoded, refused) {
    metrics.spansReceived.inc(decoded.spans.length - refused);
    if (decoded.rejectedCount > 0) metrics.spansRejected.inc(decoded.rejectedCount);
  },
};

/** GenAI log records are kept as carrier spans (see `log-event-carrier.ts`); the rest dropped. */
export const LOGS: Signal = {
  name: 'logs',
  path: '/v1/logs',
  field: 'resourceLogs',
  noun: 'log record',
  decodeProtobuf: decodeOtlpProtobufLogs,
  decodeJson: decodeOtlpJsonLogs,
  isNotExport: isNotLogsExport,
  count(metrics, decoded, refused) {
    const logs = decoded as DecodedLogs;
    metrics.logRecordsReceived.inc(logs.spans.length - refused);
    for (const [reason, n] of Object.entries(logs.dropped))
      if (n > 0) metrics.logRecordsDropped.inc({ reason }, n);
    if (logs.rejectedCount > 0)
      metrics.logRecordsDropped.inc({ reason: 'invalid' }, logs.rejectedCount);
  },
};
