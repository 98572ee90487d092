/**
 * What the fault tests that score the demo suite share: its traces, the evaluation span ids they
 * must get and those a backend received, and `serve` run in the test's process on a Redis of
 * its own (which a test may stop and start).
 */
import { join } from 'node:path';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { loadConfig } from '../../src/config/load-config.js';
import { createEvaluationExporter } from '../../src/emit/otlp-evaluation-exporter.js';
import { startService, type Service } from '../../src/server/start-service.js';
import { documentedSpanId } from './expected-span-ids.js';
import type { OtlpBackend } from './otlp-backend.js';
import { startRedisServer, type RedisServer } from './redis-server.js';
import { sdkAgentTrace } from './sdk-spans.js';

const ROOT = new URL('../../', import.meta.url).pathname;
/** The demo suite: three test cases, two deterministic scorers. */
export const DEMO_SUITE = join(ROOT, 'config/suites/demo.yaml');
/** The demo suite's scorers: an evaluation span each per scored trace. */
export const SCORERS = ['tool_call_accuracy', 'tool_correctness'];

/** `count` demo-suite traces (test case `weather-lisbon`, one `get_weather` call each). */
export function weatherRuns(count: number): ReadableSpan[][] {
  return Array.from({ length: count }, () => sdkAgentTrace('weather-lisbon', ['get_weather']));
}

/** The evaluation span ids `runs` must get: one per demo scorer, derived from trace and scorer. */
export function expectedIds(runs: ReadableSpan[][]): string[] {
  return runs
    .flatMap(r => {
      const traceId = r[0]!.spanContext().traceId;
      return SCORERS.map(s => `${traceId}/${documentedSpanId(traceId, s, 'weather-lisbon')}`);
    })
    .sort();
}

/** Every evaluation span id `b` received, duplicates kept, sorted. */
export const receivedIds = (b: OtlpBackend): string[] =>
  b.spans.map(s => `${s.traceId}/${s.spanId}`).sort();

/** The in-process service's config: the bullmq driver on `redisUrl`, the demo suite, no log lines. */
export function serviceConfig(redisUrl: string, overrides: Record<string, unknown> = {}) {
  return loadConfig({
    env: {},
    overrides: {
      'queue.redisUrl': redisUrl,
      'receiver.port': 0,
      'receiver.host': '127.0.0.1',
      'assembly.settleMs': 100,
      'export.logResults': false,
      suites: [DEMO_SUITE],
      ...overrides,
    },
  });
}

/**
 * `serve` in this process, on a private Redis, scoring the demo suite, exporting to `otlp`, with
 * `overrides` of its config; what stops them is pushed to `cleanups` (run last first).
 */
export async function serviceOnPrivateRedis(
  otlp: OtlpBackend,
  cleanups: Array<() => Promise<unknown>>,
  overrides: Record<string, unknown> = {},
): Promise<{ service: Service; redis: RedisServer }> {
  const redis = await startRedisServer();
  cleanups.push(() => redis.stop());
  const config = await serviceConfig(redis.url, overrides);
  const service = await startService(
    config,
    { receiver: true, workers: true },
    { log: () => undefined, exporter: createEvaluationExporter({ url: otlp.url }) },
  );
  cleanups.push(() => service.close());
  cleanups.push(() => redis.start()); // runs first: a test failing mid-outage can still close
  return { service, redis };
}
