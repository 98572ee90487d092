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

/**
 * A service whose evaluation-span backend is down until `up()`; export failures retry by age
 * (`export.retryMaxAgeMs`), with only 2 attempts for anything else, so a count-based retry would
 * have given up long before the backend returns.
 */
async function serviceWithOutage(driver: string, overrides: Record<string, unknown>) {
  const backend = switchableExporter();
  const failed: string[] = [];
  const config: Record<string, unknown> = {
    'queue.driver': driver,
    'receiver.port': 0,
    'receiver.host': '127.0.0.1',
    'assembly.settleMs': 50,
    'assembly.maxWaitMs': 1000, // the span buffer's own TTL is 2 × this + 60 s
    'worker.attempts': 2,
    'worker.backoffMs': 50,
    'export.retryMaxBackoffMs': 200,
    'export.logResults': false,
    suites: [new URL('../../config/suites/demo.yaml', import.meta.url).pathname],
    ...overrides,
  };
  const redis = driver === 'bullmq' ? redisFor(testPrefix()) : undefined;
  if (redis) {
    closers.push(() => redis.cleanup());
    config['queue.prefix'] = redis.prefix;
  }
  const service = await startService(
    await loadConfig({ env: { REDIS_URL }, overrides: config }),
    { receiver: true, workers: true },
    {
      log: line => {
        if (line.includes('could not score trace')) failed.push(line);
      },
      exporter: backend.exporter,
    },
  );
  closers.push(() => service.close());
  const traceId = await sendRun(service.url!, {
    name: 't',
    testCaseId: 'wrong-tool',
    tools: ['search_web'],
  });
  const pttl = (): Promise<number> =>
    redis!.commands.pttl(`${redis!.prefix}:trace:{${traceId}}:spans`);
  return { service, traceId, written: backend.written, failed, pttl, up: backend.up };
}

describe.each(['memory', 'bullmq'])('export failures retried by age (%s driver)', driver => {
  it('writes the evaluation spans once the backend is back, long after a count would have given up', async () => {
    const s = await serviceWithOutage(driver, { 'export.retryMaxAgeMs': 60_000 });
    await new Promise(r => setTimeout(r, 2500)); // ~15 retries at the 200 ms cap
    expect(s.written.size).toBe(0);
    // The bullmq driver keeps the trace's spans for the retries: past the buffer's 62 s TTL.
    if (driver === 'bullmq') expect(await s.pttl()).toBeGreaterThan(600_000);
    s.up();
    await waitFor(() => s.written.has(s.traceId), 'evaluation spans written after the outage');
    expect(s.failed).toEqual([]);
    // The run record is written after the evaluation spans, in the results store's next batch.
    const state = async (): Promise<string | undefined> =>
      (
        (await (
          await fetch(s.service.url!.replace('/v1/traces', `/api/v1/traces/${s.traceId}`))
        ).json()) as { state?: string }
      ).state;
    await waitFor(async () => (await state()) !== undefined, 'the run record');
    expect(await state()).toBe('scored');
  }, 20_000);

  it('gives up once the trace is older than export.retryMaxAgeMs, with the reason', async () => {
    const s = await serviceWithOutage(driver, { 'export.retryMaxAgeMs': 800 });
    await waitFor(() => s.failed.length > 0, 'the trace given up', 10_000);
    expect(s.failed[0]).toMatch(new RegExp(`could not score trace ${s.traceId}: .*backend down`));
    const record = (await (
      await fetch(s.service.url!.replace('/v1/traces', `/api/v1/traces/${s.traceId}`))
    ).json()) as { state: string; reason: string };
    expect(record.state).toBe('failed');
    expect(record.reason).toMatch(/backend down/);
    s.up();
  }, 20_000);
});
