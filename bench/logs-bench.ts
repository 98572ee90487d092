import type { AddressInfo } from 'node:net';
import { context, trace, TraceFlags } from '@opentelemetry/api';
import {
  JsonLogsSerializer,
  ProtobufLogsSerializer,
  ProtobufTraceSerializer,
} from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  InMemoryLogRecordExporter,
  LoggerProvider,
  SimpleLogRecordProcessor,
  type ReadableLogRecord,
} from '@opentelemetry/sdk-logs';
import { decodeOtlpJsonLogs } from '../src/ingest/decode-otlp-logs-json.js';
import { decodeOtlpProtobufLogs } from '../src/ingest/decode-otlp-logs-protobuf.js';
import { decodeOtlpProtobuf } from '../src/ingest/decode-otlp-protobuf.js';
import { createOtlpHttpReceiver } from '../src/ingest/otlp-http-receiver.js';
import type { SpanDigest } from '../src/ingest/span-digest.js';
import { groupSpansByTrace } from '../src/normalize/group-spans-by-trace.js';
import { normalizeTrace } from '../src/normalize/normalize-trace.js';
import { medianRate, medianRateAsync } from './measure.js';
import { agentSpans } from './reading-bench.js';

const RECORDS_PER_REQUEST = 512;
const CHATS_PER_TRACE = 10;

/**
 * 512-record logs requests as an app with the OpenTelemetry OpenAI instrumentation sends them,
 * made by the real logs SDK: per chat call a `gen_ai.user.message`, a `gen_ai.choice` with a tool
 * call and a `gen_ai.tool.message` with its result, in the chat span's context, and one
 * application log line (dropped by the receiver), so a quarter of the records are not GenAI.
 */
function chatLogRecords(requests: number): ReadableLogRecord[][] {
  const exporter = new InMemoryLogRecordExporter();
  const provider = new LoggerProvider({
    resource: resourceFromAttributes({ 'service.name': 'bench-agent' }),
    processors: [new SimpleLogRecordProcessor({ exporter })],
  });
  const genAi = provider.getLogger('@opentelemetry/instrumentation-openai', '0.21.0');
  const app = provider.getLogger('app');
  const calls = (requests * RECORDS_PER_REQUEST) / 4;
  for (let c = 0; c < calls; c++) {
    const t = Math.floor(c / CHATS_PER_TRACE);
    const ctx = trace.setSpanContext(context.active(), {
      traceId: (t + 1).toString(16).padStart(32, 'a'),
      spanId: (c + 1).toString(16).padStart(16, 'b'),
      traceFlags: TraceFlags.SAMPLED,
    });
    genAi.emit({
      eventName: 'gen_ai.user.message',
      context: ctx,
      body: { content: 'Find me a flight to Lisbon on 2026-12-01 and the weather there.' },
      attributes: { 'gen_ai.system': 'openai' },
    });
    genAi.emit({
      eventName: 'gen_ai.choice',
      context: ctx,
      body: {
        index: 0,
        finish_reason: 'tool_calls',
        message: {
          tool_calls: [
            {
              id: `call_${c}`,
              type: 'function',
              function: { name: 'search_flights', arguments: '{"to":"LIS","date":"2026-12-01"}' },
            },
          ],
        },
      },
      attributes: { 'gen_ai.system': 'openai' },
    });
    genAi.emit({
      eventName: 'gen_ai.tool.message',
      context: ctx,
      body: { id: `call_${c}`, content: '{"status":"ok","items":[{"id":"TP541","price":129.5}]}' },
      attributes: { 'gen_ai.system': 'openai' },
    });
    app.emit({ context: ctx, severityText: 'INFO', body: `GET /flights?to=LIS 200 in 41 ms` });
  }
  const all = exporter.getFinishedLogRecords();
  return Array.from({ length: requests }, (_, r) =>
    all.slice(r * RECORDS_PER_REQUEST, (r + 1) * RECORDS_PER_REQUEST),
  );
}

/** `traces` traces of the same calls both ways: messages on the chat spans, or in joined log records. */
function sameCallsTwoWays(traces: number): { onSpans: SpanDigest[][]; inLogs: SpanDigest[][] } {
  const records = chatLogRecords((traces * CHATS_PER_TRACE * 4) / RECORDS_PER_REQUEST).flat();
  const carriers = decodeOtlpJsonLogs(
    JSON.parse(new TextDecoder().decode(JsonLogsSerializer.serializeRequest(records))),
  ).spans;
  const inLogs: SpanDigest[][] = [];
  const onSpans: SpanDigest[][] = [];
  for (const [traceId, group] of groupSpansByTrace(carriers)) {
    const root = chatSpan(traceId, 'ffffffffffffffff', '', 'invoke_agent travel', {});
    const chats = [...new Set(group.map(c => c.parentSpanId))].map(spanId =>
      chatSpan(traceId, spanId, root.spanId, 'chat gpt-4o', {
        'gen_ai.operation.name': 'chat',
        'gen_ai.request.model': 'gpt-4o',
      }),
    );
    inLogs.push([root, ...chats, ...group]);
    // The same calls as GenAI messages on the chat spans themselves.
    onSpans.push([
      root,
      ...chats.map(chat => ({
        ...chat,
        attributes: {
          ...chat.attributes,
          'gen_ai.output.messages': JSON.stringify([
            {
              role: 'assistant',
              parts: [
                {
                  type: 'tool_call',
                  id: `call_${chat.spanId}`,
                  name: 'search_flights',
                  arguments: { to: 'LIS', date: '2026-12-01' },
                },
              ],
            },
          ]),
        },
      })),
    ]);
  }
  return { onSpans, inLogs };
}

function chatSpan(
  traceId: string,
  spanId: string,
  parentSpanId: string,
  name: string,
  attributes: SpanDigest['attributes'],
): SpanDigest {
  return {
    traceId,
    spanId,
    parentSpanId,
    name,
    kind: 3,
    startTimeUnixNano: 1n,
    endTimeUnixNano: 2n,
    attributes,
    events: [],
    statusCode: 0,
    statusMessage: '',
    serviceName: 'bench-agent',
    serviceVersion: '',
    deploymentEnvironment: '',
    scopeName: '@opentelemetry/instrumentation-openai',
  };
}

/**
 * The logs signal: decoding OTLP logs requests (records/s, protobuf and JSON) beside decoding trace
 * requests (spans/s) and JSON.parse of the same logs payloads; the receiver's `POST /v1/logs`
 * beside `POST /v1/traces` over HTTP into a sink that keeps nothing; and the cost of joining log
 * records to their spans at normalization, against the same calls recorded on the spans.
 */
export async function logsBench(rounds: number) {
  const requests = 20;
  const records = chatLogRecords(requests);
  const recordCount = requests * RECORDS_PER_REQUEST;
  const pb = records.map(r => Buffer.from(ProtobufLogsSerializer.serializeRequest(r)!));
  const json = records.map(r => Buffer.from(JsonLogsSerializer.serializeRequest(r)!));
  const spanPb = agentSpans(requests).map(r =>
    Buffer.from(ProtobufTraceSerializer.serializeRequest(r)!),
  );
  const parseOnly = medianRate(
    'JSON.parse alone of the JSON logs payloads (baseline)',
    recordCount,
    () => json.forEach(b => void (JSON.parse(b.toString('utf8')) as unknown)),
    rounds,
  );
  const decodeJson = medianRate(
    'JSON.parse + decodeOtlpJsonLogs (bytes → carriers)',
    recordCount,
    () => json.forEach(b => decodeOtlpJsonLogs(JSON.parse(b.toString('utf8')))),
    rounds,
  );
  const decodePb = medianRate(
    'decodeOtlpProtobufLogs (bytes → carriers)',
    recordCount,
    () => pb.forEach(b => decodeOtlpProtobufLogs(b)),
    rounds,
  );
  const decodeSpans = medianRate(
    'decodeOtlpProtobuf of agent trace requests (spans/s, for scale)',
    recordCount,
    () => spanPb.forEach(b => decodeOtlpProtobuf(b)),
    rounds,
  );

  // Accept: the receiver over HTTP, one request at a time, into a sink that keeps nothing.
  let kept = 0;
  const app = createOtlpHttpReceiver({
    sink: {
      accept: spans => {
        kept += spans.length;
        return Promise.resolve();
      },
    },
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const origin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const postAll = (path: string, bodies: Buffer[]) => async () => {
    for (const body of bodies) {
      const res = await fetch(`${origin}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-protobuf' },
        body,
      });
      if (res.status !== 200) throw new Error(`${path} answered ${res.status}`);
      await res.arrayBuffer();
    }
  };
  const acceptLogs = await medianRateAsync(
    'POST /v1/logs, protobuf (records/s)',
    recordCount,
    postAll('/v1/logs', pb),
    rounds,
  );
  const keptLogs = kept;
  const acceptSpans = await medianRateAsync(
    'POST /v1/traces, protobuf (spans/s)',
    recordCount,
    postAll('/v1/traces', spanPb),
    rounds,
  );
  await app.close();

  // Join: normalizing traces whose calls are in log records, against the same calls on spans.
  const { onSpans, inLogs } = sameCallsTwoWays(200);
  const normalizeAll = (traces: SpanDigest[][]) => () =>
    traces.forEach(t => normalizeTrace(t[0]!.traceId, t));
  const normalizeOnSpans = medianRate(
    'normalize, calls in gen_ai.output.messages on the chat spans',
    onSpans.length,
    normalizeAll(onSpans),
    rounds,
  );
  const normalizeInLogs = medianRate(
    'normalize, the same calls in log records joined to the spans',
    inLogs.length,
    normalizeAll(inLogs),
    rounds,
  );
  return {
    records: recordCount,
    recordsPerRequest: RECORDS_PER_REQUEST,
    /** GenAI records kept per record posted (the rest are application log lines, dropped). */
    keptShare: keptLogs / (recordCount * (rounds + 1)),
    bytesPerRecord: {
      protobuf: pb.reduce((s, b) => s + b.length, 0) / recordCount,
      json: json.reduce((s, b) => s + b.length, 0) / recordCount,
    },
    parseOnly,
    decodeJson,
    decodePb,
    decodeSpans,
    acceptLogs,
    acceptSpans,
    chatsPerTrace: CHATS_PER_TRACE,
    normalizeOnSpans,
    normalizeInLogs,
  };
}
