import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import type { EvaluationSpan } from '../../src/emit/score-to-span.js';
import { SpanscoreError } from '../../src/errors/spanscore-error.js';
import { startService } from '../../src/server/start-service.js';
import { otlpRequest, spanId, traceId } from '../helpers/otlp-json-builder.js';
import { REDIS_URL, redisFor, testPrefix, waitFor } from '../helpers/redis.js';

/**
 * A trace rescored for late spans (`assembly.rescoreLateSpans`) whose export fails once: the
 * rescore's evaluation spans are written when the export is retried. With the bullmq driver the
 * retry found the trace marked scored (by its first scoring) and took itself for a job whose trace
 * another had scored: it ended at once, and the rescore's evaluation spans were never written.
 */

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

const T = 61;
const SCORERS = 2; // the demo suite's, for weather-lisbon

const toolSpan = (k: number) => ({
  traceId: traceId(T),
  spanId: spanId(T, k),
  parentSpanId: spanId(T, 1),
  name: 'execute_tool get_weather',
  startMs: k,
  endMs: k + 1,
  attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'get_weather' },
});

describe.each(['memory', 'bullmq'])('a rescore whose export fails once (%s driver)', driver => {
  it('writes its evaluation spans when the export is retried', async () => {
    const exported: EvaluationSpan[] = [];
    let failures = 0;
    const config: Record<string, unknown> = {
      'queue.driver': driver,
      'receiver.port': 0,
      'receiver.host': '127.0.0.1',
      'assembly.settleMs': 50,
      'assembly.maxWaitMs': 1000,
      'assembly.rescoreLateSpans': true,
      'worker.backoffMs': 50,
      'export.retryMaxBackoffMs': 200,
      'export.logResults': false,
      suites: [new URL('../../config/suites/demo.yaml', import.meta.url).pathname],
    };
    if (driver === 'bullmq') {
      const redis = redisFor(testPrefix());
      closers.push(() => redis.cleanup());
      config['queue.prefix'] = redis.prefix;
    }
    const service = await startService(
      await loadConfig({ env: { REDIS_URL }, overrides: config }),
      { receiver: true, workers: true },
      {
        exporter: {
          export: spans => {
            if (failures > 0) {
              failures--;
              return Promise.reject(new SpanscoreError('SS_EXPORT_FAILED', 'backend down once'));
            }
            exported.push(...spans);
            return Promise.resolve();
          },
          shutdown: () => Promise.resolve(),
        },
      },
    );
    closers.push(() => service.close());
    const send = async (spans: Parameters<typeof otlpRequest>[0]) => {
      const response = await fetch(service.url!, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(otlpRequest(spans)),
      });
      expect(response.status).toBe(200);
    };
    const ofTrace = () => exported.filter(s => s.traceId === traceId(T));

    await send([
      {
        traceId: traceId(T),
        spanId: spanId(T, 1),
        name: 'invoke_agent weather',
        startMs: 0,
        endMs: 10,
        attributes: { 'spanscore.test_case.id': 'weather-lisbon' },
      },
      toolSpan(2),
    ]);
    await waitFor(() => ofTrace().length === SCORERS, 'the first scoring exported');

    failures = 1;
    await send([toolSpan(3)]);
    await waitFor(
      () => ofTrace().length === 2 * SCORERS,
      "the rescore's evaluation spans, exported on the retry",
      10_000,
    );
    expect(failures).toBe(0);
  }, 30_000);
});
