import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { context, trace } from '@opentelemetry/api';
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { checkJsonItems, DEFAULT_DECODE_LIMITS } from '../src/ingest/decode-limits.js';
import { decodeOtlpJson } from '../src/ingest/decode-otlp-json.js';
import { readTraceFiles } from '../src/ingest/read-trace-files.js';
import { recordingProvider } from '../test/helpers/sdk-spans.js';
import { compareIsolated, type SideResult } from './isolated-side.js';
import { medianRate, medianRateAsync, prng } from './measure.js';

const SPANS_PER_REQUEST = 512;
const SPANS_PER_TRACE = 20;

/**
 * 512-span requests of 20-span agent traces made by the real OTel SDK: an invoke_agent root,
 * chat spans with GenAI messages, execute_tool spans with arguments and results.
 */
export function agentSpans(
  requests: number,
  seed = 7,
  /** Arguments and results differ from call to call (by default every call has the same). */
  unique = false,
  /** Every root carries a session id (`session.id`), three traces to a session. */
  sessions = false,
): ReadableSpan[][] {
  const rand = prng(seed);
  const { provider, spans } = recordingProvider('bench-agent');
  const tracer = provider.getTracer('bench');
  const tools = ['search_flights', 'get_weather', 'book_hotel', 'lookup_order'];
  const traces = (requests * SPANS_PER_REQUEST) / SPANS_PER_TRACE;
  // Span times from a seeded clock, not the host's: a stored duration's digits then do not
  // follow how fast the host ran the generator, and the budget figures' bytes stay the same.
  const clock = prng(seed + 1);
  let now = Date.now();
  const span = (): { startTime: number; endTime: number } => {
    const startTime = now;
    now += 0.005;
    return { startTime, endTime: startTime + 0.01 + Math.round(clock() * 190) / 1000 };
  };
  for (let t = 0; t < traces; t++) {
    const root = tracer.startSpan('invoke_agent travel', {
      startTime: now,
      attributes: {
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.agent.name': 'travel',
        'spanscore.test_case.id': `case-${t % 100}`,
        ...(sessions && { 'session.id': `conversation-${Math.floor(t / 3)}` }),
      },
    });
    const ctx = trace.setSpan(context.active(), root);
    // The tool a chat span requests, run by the execute_tool span after it under the same call id.
    let tool = tools[0]!;
    for (let k = 1; k < SPANS_PER_TRACE; k++) {
      const times = span();
      if (k % 2 === 1) tool = tools[Math.floor(rand() * tools.length)]!;
      if (k % 2 === 1) {
        tracer
          .startSpan(
            'chat gpt-4o',
            {
              attributes: {
                'gen_ai.operation.name': 'chat',
                'gen_ai.request.model': 'gpt-4o',
                'gen_ai.usage.input_tokens': 812,
                'gen_ai.usage.output_tokens': 64,
                'gen_ai.output.messages': JSON.stringify([
                  {
                    role: 'assistant',
                    parts: [
                      {
                        type: 'tool_call',
                        id: `call_${t}_${k}`,
                        name: tool,
                        arguments: unique
                          ? { city: `Lisbon ${t}.${k}`, date: '2026-12-01' }
                          : { city: 'Lisbon', date: '2026-12-01' },
                      },
                    ],
                  },
                ]),
              },
              startTime: times.startTime,
            },
            ctx,
          )
          .end(times.endTime);
      } else {
        tracer
          .startSpan(
            `execute_tool ${tool}`,
            {
              attributes: {
                'gen_ai.operation.name': 'execute_tool',
                'gen_ai.tool.name': tool,
                'gen_ai.tool.call.id': `call_${t}_${k - 1}`,
                'gen_ai.tool.call.arguments': unique
                  ? `{"city":"Lisbon ${t}.${k - 1}","date":"2026-12-01"}`
                  : '{"city":"Lisbon","date":"2026-12-01"}',
                'gen_ai.tool.call.result': unique
                  ? `{"status":"ok","items":[{"id":"TP${t}-${k}","price":${100 + (t % 50)}.5}]}`
                  : '{"status":"ok","items":[{"id":"TP541","price":129.5}]}',
              },
              startTime: times.startTime,
            },
            ctx,
          )
          .end(times.endTime);
      }
    }
    root.end(now + 0.02);
    now += 0.05;
  }
  const all = spans();
  return Array.from({ length: requests }, (_, r) =>
    all.slice(r * SPANS_PER_REQUEST, (r + 1) * SPANS_PER_REQUEST),
  );
}

export async function readingBench(rounds: number) {
  const requests = agentSpans(20);
  const spanCount = requests.length * SPANS_PER_REQUEST;
  const pb = requests.map(r => ProtobufTraceSerializer.serializeRequest(r)!);
  const json = requests.map(r =>
    Buffer.from(
      JSON.stringify(JSON.parse(new TextDecoder().decode(JsonTraceSerializer.serializeRequest(r)))),
    ),
  );
  const bytesPerSpan = {
    protobuf: pb.reduce((s, b) => s + b.length, 0) / spanCount,
    json: json.reduce((s, b) => s + b.length, 0) / spanCount,
  };

  // protobufjs static code (as generated for @opentelemetry/otlp-transformer 0.216, the fastest
  // general decoder measured here, which builds message objects, not digests) against ours (which
  // checks attributes on arrival and decodes them when read: timed both alone and with every
  // attribute read, which is what the memory driver and the worker do), each
  // in a worker thread of its own (`reading-side.ts`), on the same bytes, in alternating rounds of
  // three passes: in one isolate each decoder's garbage and inline caches slowed the other, and
  // by a different factor from run to run. Rates are spans per second.
  const [protobufjs, decodePb, decodePbRead] = (await compareIsolated(
    new URL('./reading-side.ts', import.meta.url),
    [
      {
        label: 'protobufjs static decode (otlp-transformer 0.216 code)',
        workerData: { side: 'protobufjs', payloads: pb },
        passes: 3,
      },
      {
        label: 'decodeOtlpProtobuf (bytes → digests)',
        workerData: { side: 'ours', payloads: pb },
        passes: 3,
      },
      {
        label: 'decodeOtlpProtobuf, then every attribute read',
        workerData: { side: 'ours-read', payloads: pb },
        passes: 3,
      },
    ],
    Math.max(15, rounds * 3),
    SPANS_PER_REQUEST,
  )) as [SideResult, SideResult, SideResult];
  const parseOnly = medianRate(
    'JSON.parse alone of the same payloads (baseline)',
    spanCount,
    () => json.forEach(b => void (JSON.parse(b.toString('utf8')) as unknown)),
    rounds,
  );
  // The receiver's JSON path: the item count before parsing (decode limits), then the parse.
  const decodeJson = medianRate(
    'checkJsonItems + JSON.parse + decodeOtlpJson (bytes → digests)',
    spanCount,
    () =>
      json.forEach(b => {
        checkJsonItems(b, DEFAULT_DECODE_LIMITS);
        decodeOtlpJson(JSON.parse(b.toString('utf8')));
      }),
    rounds,
  );

  const dir = mkdtempSync(join(tmpdir(), 'spanscore-bench-'));
  pb.forEach((b, i) => writeFileSync(join(dir, `r${i}.otlp.pb`), b));
  json.forEach((b, i) => writeFileSync(join(dir, `r${i}.otlp.json`), b));
  const pbFiles = pb.map((_, i) => join(dir, `r${i}.otlp.pb`));
  const jsonFiles = json.map((_, i) => join(dir, `r${i}.otlp.json`));
  const filesPb = await medianRateAsync(
    'readTraceFiles, .pb files',
    spanCount,
    async () => void (await readTraceFiles(pbFiles)),
    rounds,
  );
  const filesJson = await medianRateAsync(
    'readTraceFiles, .json files',
    spanCount,
    async () => void (await readTraceFiles(jsonFiles)),
    rounds,
  );
  rmSync(dir, { recursive: true, force: true });
  return {
    spans: spanCount,
    spansPerRequest: SPANS_PER_REQUEST,
    bytesPerSpan,
    protobufjs,
    decodePb,
    decodePbRead,
    /** decodeOtlpProtobuf ÷ protobufjs, the median of the interleaved rounds' ratios. */
    pbRatio: decodePb.ratio,
    parseOnly,
    decodeJson,
    filesPb,
    filesJson,
  };
}
