import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { createEvaluationExporter } from '../../src/emit/otlp-evaluation-exporter.js';
import type { RunRecord } from '../../src/results/stored-result.js';
import { startService } from '../../src/server/start-service.js';
import { startOtlpBackend } from '../helpers/otlp-backend.js';
import { REDIS_URL, redisFor, testPrefix, waitFor } from '../helpers/redis.js';
import { sdkAgentTrace } from '../helpers/sdk-spans.js';

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

/** How long the trace backend is down, and for how much of that traces keep coming. */
const OUTAGE_MS = 150_000;
const LOAD_MS = 120_000;
const SEND_EVERY_MS = 500;
const SCORERS = ['tool_call_accuracy', 'tool_correctness']; // the demo suite's

/**
 * The trace backend answers 503 for 150 s while traces keep arriving (two a second for 120 s),
 * with the default settings (no retry option changed), on both drivers side by side, each with
 * its own backend. Scored means visible: every trace's results are in the results API, with its
 * export pending, before the backend returns (polled while it is down); once it is back, every
 * evaluation span arrives and the store still holds one result per trace and scorer.
 */
describe('a 150 s outage of the trace backend under load, default settings', () => {
  it('shows every result while the backend is down and loses no evaluation, with either driver', async () => {
    const drivers = await Promise.all(
      ['memory', 'bullmq'].map(async driver => {
        const backend = await startOtlpBackend();
        closers.push(() => backend.close());
        backend.down = true;
        const overrides: Record<string, unknown> = {
          'queue.driver': driver,
          'receiver.port': 0,
          'receiver.host': '127.0.0.1',
          'export.logResults': false,
          suites: [new URL('../../config/suites/demo.yaml', import.meta.url).pathname],
        };
        if (driver === 'bullmq') {
          const prefix = testPrefix();
          closers.push(redisFor(prefix).cleanup);
          overrides['queue.prefix'] = prefix;
        }
        const service = await startService(
          await loadConfig({ env: { REDIS_URL }, overrides }),
          { receiver: true, workers: true },
          { log: () => undefined, exporter: createEvaluationExporter({ url: backend.url }) },
        );
        closers.push(() => service.close());
        const api = async <T>(path: string): Promise<T> =>
          (await (await fetch(service.url!.replace('/v1/traces', `/api/v1/${path}`))).json()) as T;
        return { driver, backend, service, api, traceIds: [] as string[] };
      }),
    );

    const started = Date.now();
    // Traces keep coming for LOAD_MS; each driver's receiver takes every one.
    while (Date.now() - started < LOAD_MS) {
      const spans = sdkAgentTrace('weather-lisbon', ['get_weather']);
      const body = ProtobufTraceSerializer.serializeRequest(spans)!;
      for (const d of drivers) {
        const response = await fetch(d.service.url!, {
          method: 'POST',
          headers: { 'content-type': 'application/x-protobuf' },
          body,
        });
        expect(response.status).toBe(200);
      }
      for (const d of drivers) d.traceIds.push(spans[0]!.spanContext().traceId);
      await new Promise(r => setTimeout(r, SEND_EVERY_MS));
    }
    // Still down: every trace sent has its results, with the export pending.
    for (const d of drivers) {
      await waitFor(
        async () => {
          for (const id of d.traceIds) {
            const record = await d.api<RunRecord>(`traces/${id}`);
            if (record.results?.length !== SCORERS.length) return false;
          }
          return true;
        },
        `${d.driver}: the results of all ${d.traceIds.length} traces while the backend is down`,
        20_000,
      );
      const records = await Promise.all(d.traceIds.map(id => d.api<RunRecord>(`traces/${id}`)));
      expect(records.every(r => r.state === 'scored')).toBe(true);
      expect(records.every(r => r.export?.state === 'pending')).toBe(true);
      expect(Math.max(...records.map(r => r.export!.attempts))).toBeGreaterThan(1);
      expect(d.backend.spans).toHaveLength(0);
    }
    expect(Date.now() - started).toBeLessThan(OUTAGE_MS); // all of it seen before the backend returns
    await new Promise(r => setTimeout(r, Math.max(0, OUTAGE_MS - (Date.now() - started))));
    for (const { backend } of drivers) {
      expect(backend.spans).toHaveLength(0);
      expect(backend.requests()).toBeGreaterThan(10); // it was retried during the outage
      backend.down = false;
    }
    for (const d of drivers) {
      const { driver, backend, traceIds } = d;
      await waitFor(
        () =>
          new Set(backend.spans.map(s => `${s.traceId}/${s.spanId}`)).size ===
          traceIds.length * SCORERS.length,
        `${driver}: every evaluation span after the outage`,
        120_000,
      );
      expect([...new Set(backend.spans.map(s => s.traceId))].sort()).toEqual([...traceIds].sort());
      // Retried for minutes, stored once: one result per trace and scorer.
      const results: Array<{ traceId: string; scorer: string }> = [];
      for (let cursor: string | null | undefined; ;) {
        const page = await d.api<{ results: typeof results; nextCursor: string | null }>(
          `results?limit=500${cursor ? `&cursor=${cursor}` : ''}`,
        );
        results.push(...page.results);
        if (!(cursor = page.nextCursor)) break;
      }
      expect(results).toHaveLength(traceIds.length * SCORERS.length);
      expect(new Set(results.map(r => `${r.traceId}/${r.scorer}`)).size).toBe(results.length);
      await waitFor(
        async () =>
          (await d.api<RunRecord>(`traces/${traceIds.at(-1)!}`)).export?.state === 'exported',
        `${driver}: the export recorded`,
      );
    }
  }, 480_000);
});
