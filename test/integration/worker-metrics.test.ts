import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { startService } from '../../src/server/start-service.js';
import { REDIS_URL, redisFor, testPrefix } from '../helpers/redis.js';
import { sendKnownTraffic } from '../helpers/results-traffic.js';

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

describe('metrics of a worker-only process', () => {
  it('serves /metrics on worker.metricsPort, with the scores it computed and trace-id exemplars', async () => {
    const prefix = testPrefix();
    const redis = redisFor(prefix);
    closers.push(() => redis.cleanup());
    const base = {
      'queue.driver': 'bullmq',
      'queue.prefix': prefix,
      'receiver.host': '127.0.0.1',
      'receiver.port': 0,
      'assembly.settleMs': 100,
      'export.logResults': false,
      // The known traffic's counts are the demo suite's (see serveWithKnownTraffic).
      'toolHealth.enabled': false,
      suites: [new URL('../../config/suites/demo.yaml', import.meta.url).pathname],
    };
    const hooks = {
      log: () => undefined,
      exporter: { export: () => Promise.resolve(), shutdown: () => Promise.resolve() },
    };
    const receiver = await startService(
      await loadConfig({ env: { REDIS_URL }, overrides: base }),
      { receiver: true, workers: false },
      hooks,
    );
    closers.push(() => receiver.close());
    const worker = await startService(
      await loadConfig({ env: { REDIS_URL }, overrides: { ...base, 'worker.metricsPort': 0 } }),
      { receiver: false, workers: true },
      hooks,
    );
    closers.push(() => worker.close());
    expect(worker.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    await sendKnownTraffic(new URL(receiver.url!).origin);

    // OpenMetrics, as Prometheus asks by default: the exemplars are OpenMetrics only.
    const response = await fetch(worker.metricsUrl!, {
      headers: { accept: 'application/openmetrics-text; version=1.0.0' },
    });
    expect(response.headers.get('content-type')).toContain('application/openmetrics-text');
    const text = await response.text();
    expect(text).toMatch(
      /spanscore_evaluations_total\{scorer="tool_correctness",target="wrong-tool",label="fail",service="travel-agent-v2"\} 1/,
    );
    expect(text).toMatch(
      /gen_ai_evaluation_score_bucket\{le="0.1",scorer="tool_correctness",target="wrong-tool",service="travel-agent-v2"\} 1 # \{trace_id="[0-9a-f]{32}"\} 0 /,
    );
    expect(text).toMatch(/spanscore_traces_not_scored_total\{reason="unknown_test_case"\} 1/);
    expect(text).toMatch(/spanscore_scoring_lag_seconds_count 5/);
    // Each process's own cost, from prom-client's default metrics, on the worker and the receiver.
    const receiverText = await (
      await fetch(receiver.url!.replace('/v1/traces', '/metrics'))
    ).text();
    for (const [who, body] of [
      ['worker', text],
      ['receiver', receiverText],
    ] as const)
      for (const metric of [
        /^process_cpu_seconds_total \d/m,
        /^process_resident_memory_bytes [1-9]\d{6,}/m,
        /^nodejs_heap_size_used_bytes [1-9]\d{5,}/m,
        /^nodejs_external_memory_bytes \d/m,
        /^nodejs_eventloop_lag_seconds \d/m,
      ])
        expect(body, `${who}: ${String(metric)}`).toMatch(metric);
    expect(await (await fetch(worker.metricsUrl!.replace('/metrics', '/healthz'))).json()).toEqual({
      status: 'ok',
    });
  });

  it('asks a read token on worker.metricsPort when read tokens are set, as the API does', async () => {
    const prefix = testPrefix();
    const redis = redisFor(prefix);
    closers.push(() => redis.cleanup());
    const worker = await startService(
      await loadConfig({
        env: { REDIS_URL },
        overrides: {
          'queue.driver': 'bullmq',
          'queue.prefix': prefix,
          'receiver.host': '127.0.0.1',
          'worker.metricsPort': 0,
          'receiver.authTokens': ['agent'],
          'results.readTokens': ['reader'],
          suites: [new URL('../../config/suites/demo.yaml', import.meta.url).pathname],
        },
      }),
      { receiver: false, workers: true },
      { log: () => undefined },
    );
    closers.push(() => worker.close());
    const scrape = (token?: string) =>
      fetch(worker.metricsUrl!, token ? { headers: { authorization: `Bearer ${token}` } } : {});
    const none = await scrape();
    expect([none.status, none.headers.get('www-authenticate')]).toEqual([401, 'Bearer']);
    expect((await scrape('agent')).status).toBe(403);
    const read = await scrape('reader');
    expect(read.status).toBe(200);
    expect(await read.text()).toMatch(/^process_cpu_seconds_total \d/m);
  });
});
