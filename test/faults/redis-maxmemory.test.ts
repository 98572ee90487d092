import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { startService } from '../../src/server/start-service.js';
import { waitFor } from '../helpers/redis.js';
import { startRedisServer } from '../helpers/redis-server.js';
import { runRequest } from '../helpers/results-traffic.js';
import { switchableExporter } from '../helpers/switchable-exporter.js';

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

const DEMO = new URL('../../config/suites/demo.yaml', import.meta.url).pathname;

/**
 * Redis at `maxmemory` with `noeviction` (as BullMQ requires): writes fail with OOM. The receiver
 * must answer 503 with Retry-After (so exporters keep the batch and retry), stay up, and lose no
 * trace it accepted: once Redis has room again, everything accepted is scored, and the refused
 * batch, sent again as an exporter would, is scored too.
 */
describe('Redis full (maxmemory, noeviction)', () => {
  it('answers 503 with Retry-After, stays up, and scores every accepted trace once Redis has room', async () => {
    const redis = await startRedisServer();
    closers.push(() => redis.stop());
    redis.cli('CONFIG', 'SET', 'maxmemory-policy', 'noeviction');
    const lines: string[] = [];
    const backend = switchableExporter();
    backend.up();
    const service = await startService(
      await loadConfig({
        env: { REDIS_URL: redis.url },
        overrides: {
          'receiver.port': 0,
          'receiver.host': '127.0.0.1',
          'assembly.settleMs': 1500, // accepted traces stay buffered while Redis fills
          'assembly.maxWaitMs': 60_000,
          'export.logResults': false,
          'worker.backoffMs': 200,
          'export.retryMaxBackoffMs': 1000,
          suites: [DEMO],
        },
      }),
      { receiver: true, workers: true },
      { log: line => lines.push(line), exporter: backend.exporter },
    );
    closers.push(() => service.close());
    const origin = new URL(service.url!).origin;
    const used = Number(/used_memory:(\d+)/.exec(redis.cli('INFO', 'memory'))![1]);
    redis.cli('CONFIG', 'SET', 'maxmemory', String(used + 2 * 1024 * 1024));

    // Agent runs with 40 kB of tool arguments each, until Redis refuses one.
    const accepted: string[] = [];
    let refused:
      { traceId: string; body: string; status: number; retryAfter: string | null } | undefined;
    for (let i = 0; i < 400 && !refused; i++) {
      const { traceId, body } = runRequest({
        name: `big-${i}`,
        testCaseId: 'weather-lisbon',
        tools: ['get_weather'],
        toolArgs: [JSON.stringify({ city: 'Lisbon', notes: 'x'.repeat(40_000) })],
      });
      const text = JSON.stringify(body);
      const response = await fetch(`${origin}/v1/traces`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: text,
      });
      if (response.status === 200) accepted.push(traceId);
      else
        refused = {
          traceId,
          body: text,
          status: response.status,
          retryAfter: response.headers.get('retry-after'),
        };
    }
    expect(refused, 'Redis never filled up').toBeDefined();
    expect(refused!.status).toBe(503);
    expect(Number(refused!.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(accepted.length).toBeGreaterThan(5);
    expect((await fetch(`${origin}/healthz`)).status).toBe(200);

    // Room again: every accepted trace is scored, and the refused batch, sent again, too.
    redis.cli('CONFIG', 'SET', 'maxmemory', '0');
    const retried = await fetch(`${origin}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: refused!.body,
    });
    expect(retried.status).toBe(200);
    const all = [...accepted, refused!.traceId];
    await waitFor(
      () => all.every(id => backend.written.has(id)),
      `evaluation spans of all ${all.length} traces`,
      60_000,
    );
    expect(lines.filter(l => l.includes('could not score trace'))).toEqual([]);
  }, 90_000);

  it('warns at start-up when maxmemory-policy is not noeviction', async () => {
    const redis = await startRedisServer();
    closers.push(() => redis.stop());
    redis.cli('CONFIG', 'SET', 'maxmemory-policy', 'allkeys-lru');
    const lines: string[] = [];
    const service = await startService(
      await loadConfig({
        env: { REDIS_URL: redis.url },
        overrides: { 'receiver.port': 0, 'receiver.host': '127.0.0.1', suites: [DEMO] },
      }),
      { receiver: true, workers: true },
      { log: line => lines.push(line) },
    );
    closers.push(() => service.close());
    await waitFor(() => lines.some(l => l.includes('maxmemory-policy')), 'the warning');
    expect(lines.find(l => l.includes('maxmemory-policy'))).toBe(
      'spanscore: warning: Redis maxmemory-policy is allkeys-lru: when Redis is full it evicts keys, and queued jobs and buffered spans with them; set it to noeviction (BullMQ requires it), and spanscore answers 503 while Redis is full',
    );
  });
});
