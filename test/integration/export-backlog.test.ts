import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { startService } from '../../src/server/start-service.js';
import { REDIS_URL, redisFor, testPrefix, waitFor } from '../helpers/redis.js';
import { sendRun } from '../helpers/results-traffic.js';
import { switchableExporter } from '../helpers/switchable-exporter.js';

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

/** The value of an unlabelled metric in an exposition. */
const metric = (text: string, name: string): number =>
  Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);

describe.each(['memory', 'bullmq'])('the export backlog (%s driver)', driver => {
  it('counts a trace whose evaluation spans wait for a retried export, and its age, until it is written', async () => {
    const backend = switchableExporter();
    const overrides: Record<string, unknown> = {
      'queue.driver': driver,
      'receiver.port': 0,
      'receiver.host': '127.0.0.1',
      'assembly.settleMs': 50,
      'worker.attempts': 50,
      'worker.backoffMs': 100,
      // Retries at most 400 ms apart, so the backend's return is seen soon.
      'export.retryMaxBackoffMs': 400,
      'export.logResults': false,
      suites: [new URL('../../config/suites/demo.yaml', import.meta.url).pathname],
    };
    if (driver === 'bullmq') {
      const prefix = testPrefix();
      const redis = redisFor(prefix);
      closers.push(() => redis.cleanup());
      overrides['queue.prefix'] = prefix;
    }
    const service = await startService(
      await loadConfig({ env: { REDIS_URL }, overrides }),
      { receiver: true, workers: true },
      {
        log: () => undefined,
        exporter: backend.exporter,
      },
    );
    closers.push(() => service.close());
    const metricsUrl = service.url!.replace('/v1/traces', '/metrics');
    const scrape = async () => (await fetch(metricsUrl)).text();

    const traceId = await sendRun(service.url!, {
      name: 't',
      testCaseId: 'wrong-tool',
      tools: ['search_web'],
    });
    await waitFor(
      async () => metric(await scrape(), 'spanscore_exports_waiting') === 1,
      'one export waiting',
    );
    // The first request failed; while the backend stays down, the breaker sends one probe a
    // second (each a counted failure) and refuses the retries in between without a request.
    await waitFor(
      async () => metric(await scrape(), 'spanscore_export_failures_total') >= 2,
      'a second failed request: the probe',
    );
    const during = await scrape();
    expect(metric(during, 'spanscore_export_oldest_pending_seconds')).toBeGreaterThanOrEqual(1);
    expect(metric(during, 'spanscore_export_failures_total')).toBeLessThanOrEqual(3);

    backend.up();
    await waitFor(
      () => backend.written.has(traceId),
      'the evaluation spans written once the backend is up',
    );
    await waitFor(
      async () => metric(await scrape(), 'spanscore_exports_waiting') === 0,
      'the backlog empty again',
    );
    expect(metric(await scrape(), 'spanscore_export_oldest_pending_seconds')).toBe(0);
  }, 30_000);
});
