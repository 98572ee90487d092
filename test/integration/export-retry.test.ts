import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import type { RunRecord, StoredResult } from '../../src/results/stored-result.js';
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
    // One trace at a time: a trace waiting to retry its export must not hold up the next one.
    'worker.concurrency': 1,
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
        if (line.includes('could not score trace') || line.includes('gave up exporting'))
          failed.push(line);
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
    redis!.commands.pttl(`${redis!.prefix}:trace:{${traceId}}:buffer`);
  const api = async <T>(path: string): Promise<T> =>
    (await (await fetch(service.url!.replace('/v1/traces', `/api/v1/${path}`))).json()) as T;
  const record = () => api<RunRecord>(`traces/${traceId}`);
  const results = async () =>
    (await api<{ results: StoredResult[] }>(`results?traceId=${traceId}`)).results;
  return {
    service,
    traceId,
    written: backend.written,
    failed,
    pttl,
    up: backend.up,
    record,
    results,
  };
}

describe.each(['memory', 'bullmq'])('export failures retried by age (%s driver)', driver => {
  it('writes the evaluation spans once the backend is back, long after a count would have given up', async () => {
    const s = await serviceWithOutage(driver, { 'export.retryMaxAgeMs': 60_000 });
    // Scored means visible: the results are there while the export is still failing.
    await waitFor(async () => (await s.results()).length === 2, 'results during the outage');
    // And the next trace is scored too, though the first one still waits for its export.
    const next = await sendRun(s.service.url!, {
      name: 'next',
      testCaseId: 'weather-lisbon',
      tools: ['get_weather'],
    });
    await waitFor(async () => {
      const r = await fetch(s.service.url!.replace('/v1/traces', `/api/v1/traces/${next}`));
      return r.ok && ((await r.json()) as RunRecord).results.length === 2;
    }, 'the second trace scored during the outage');
    await new Promise(r => setTimeout(r, 2500)); // ~15 retries at the 200 ms cap
    expect(s.written.size).toBe(0);
    const during = await s.record();
    expect(during).toMatchObject({ state: 'scored', export: { state: 'pending' } });
    expect(during.export!.attempts).toBeGreaterThan(3);
    expect(during.export!.lastError).toMatch(/backend down/);
    // The bullmq driver keeps the trace's spans for the retries: past the buffer's 62 s TTL.
    if (driver === 'bullmq') expect(await s.pttl()).toBeGreaterThan(600_000);
    s.up();
    await waitFor(() => s.written.has(s.traceId), 'evaluation spans written after the outage');
    expect(s.failed).toEqual([]);
    await waitFor(
      async () => (await s.record()).export?.state === 'exported',
      'the export recorded in the run record',
    );
    // Retried many times, recorded once: one result per scorer.
    const results = await s.results();
    expect(results.map(r => r.scorer).sort()).toEqual(['tool_call_accuracy', 'tool_correctness']);
    expect((await s.record()).results).toHaveLength(2);
  }, 20_000);

  it('gives up once the trace is older than export.retryMaxAgeMs, with the reason', async () => {
    const s = await serviceWithOutage(driver, { 'export.retryMaxAgeMs': 800 });
    await waitFor(() => s.failed.length > 0, 'the trace given up', 10_000);
    expect(s.failed[0]).toMatch(
      new RegExp(`gave up exporting the evaluation spans of trace ${s.traceId} .*backend down`),
    );
    // Scored all the same: the run record keeps its results and says the export failed.
    await waitFor(
      async () => (await s.record()).export?.state === 'failed',
      'the export given up in the run record',
    );
    const record = await s.record();
    expect(record.state).toBe('scored');
    expect(record.export!.lastError).toMatch(/export still failing after .*backend down/);
    expect(record.results).toHaveLength(2);
    s.up();
  }, 20_000);
});
