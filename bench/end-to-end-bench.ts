import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { createEvaluationExporter } from '../src/emit/otlp-evaluation-exporter.js';
import { createOtlpHttpReceiver } from '../src/ingest/otlp-http-receiver.js';
import { createBullmqTraceSink } from '../src/queue/bullmq-trace-assembler.js';
import { createEvaluationSpanSink } from '../src/emit/evaluation-span-sink.js';
import { scoreTrace } from '../src/score/score-trace.js';
import { createScoreTraceWorker } from '../src/queue/score-trace.processor.js';
import { parseSuite } from '../src/suite/load-suite.js';
import { redisFor, testPrefix } from '../test/helpers/redis.js';
import { agentSpans } from './reading-bench.js';
import { configSchema } from '../src/config/config-schema.js';
import {
  bullmqSinkLimits,
  bullmqTraceOptions,
  bullmqWorkerLimits,
} from '../src/queue/bullmq-queue-driver.js';

/** Every setting at its default. */
const DEFAULTS = configSchema.parse({});

const SPANS_PER_REQUEST = 512;

/**
 * End to end on the BullMQ driver and the local Redis: OTLP protobuf requests over HTTP to the
 * receiver → span buffer and one job per request in Redis → a worker (concurrency 8, this process) →
 * scoring (tool_correctness, tool_call_accuracy) → evaluation spans exported over OTLP/HTTP to a
 * local sink. Measures from the first request to the last evaluation span received, in spans/s,
 * settle window (200 ms) included. A short run; the 60-second load report is separate.
 */
export async function endToEndBench(
  requests = 40,
): Promise<{ spans: number; traces: number; seconds: number; spansPerSecond: number }> {
  const prefix = testPrefix().replace('test', 'bench');
  const redis = redisFor(prefix);
  const batches = agentSpans(requests);
  const bodies = batches.map(b => Buffer.from(ProtobufTraceSerializer.serializeRequest(b)!));
  const traces = new Set(batches.flat().map(s => s.spanContext().traceId)).size;
  const cases = Array.from(
    { length: 100 },
    (_, i) =>
      `  - { id: case-${i}, expectedTools: [search_flights, get_weather, book_hotel, lookup_order] }`,
  ).join('\n');
  const suite = await parseSuite(
    `scorers: [tool_correctness, { name: tool_call_accuracy, expectedTool: get_weather }]\ntestCases:\n${cases}\n`,
    'bench.yaml',
    process.cwd(),
  );

  let evaluations = 0;
  let done: () => void = () => undefined;
  const finished = new Promise<void>(resolve => (done = resolve));
  const backend = createOtlpHttpReceiver({
    sink: { accept: s => ((evaluations += s.length) >= traces * 2 && done(), Promise.resolve()) },
  });
  await backend.listen({ port: 0, host: '127.0.0.1' });
  const exporter = createEvaluationExporter({
    url: `http://127.0.0.1:${(backend.server.address() as { port: number }).port}/v1/traces`,
  });
  const policy = { settleMs: 200, maxWaitMs: 10_000 };
  const sink = createBullmqTraceSink({
    ...bullmqTraceOptions(DEFAULTS),
    ...bullmqSinkLimits(DEFAULTS),
    prefix,
    policy,
    redis: redis.commands,
    queueConnection: redis.bullmq(),
  });
  const worker = createScoreTraceWorker({
    ...bullmqTraceOptions(DEFAULTS),
    ...bullmqWorkerLimits(DEFAULTS),
    prefix,
    policy,
    redis: redis.commands,
    workerConnection: redis.bullmq(),
    concurrency: 8,
    process: async (id, spans) => {
      await scoreTrace(
        id,
        spans,
        { suites: [suite], rules: [] },
        { sinks: [createEvaluationSpanSink(exporter)] },
      );
    },
  });
  const receiver = createOtlpHttpReceiver({ sink });
  await receiver.listen({ port: 0, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${(receiver.server.address() as { port: number }).port}/v1/traces`;

  const started = process.hrtime.bigint();
  let next = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (next < bodies.length) {
        const body = bodies[next++]!;
        const res = await fetch(url, {
          method: 'POST',
          body,
          headers: { 'content-type': 'application/x-protobuf' },
        });
        if (res.status !== 200) throw new Error(`receiver answered ${res.status}`);
      }
    }),
  );
  await Promise.race([
    finished,
    new Promise((_, reject) =>
      setTimeout(
        () => reject(new Error(`only ${evaluations} of ${traces * 2} evaluation spans arrived`)),
        120_000,
      ),
    ),
  ]);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;

  await worker.close();
  await sink.close();
  await receiver.close();
  await exporter.shutdown();
  await backend.close();
  await redis.cleanup();
  return {
    spans: requests * SPANS_PER_REQUEST,
    traces,
    seconds,
    spansPerSecond: (requests * SPANS_PER_REQUEST) / seconds,
  };
}
