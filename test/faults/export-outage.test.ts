import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { createEvaluationExporter } from '../../src/emit/otlp-evaluation-exporter.js';
import { startService } from '../../src/server/start-service.js';
import { startOtlpBackend } from '../helpers/otlp-backend.js';
import { REDIS_URL, redisFor, testPrefix, waitFor } from '../helpers/redis.js';
import { sdkAgentTrace } from '../helpers/sdk-spans.js';

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

const OUTAGE_MS = 150_000;

/**
 * Issue 14's outage: the trace backend answers 503 for 150 s while traces are scored. With the
 * default settings (no retry option changed) every evaluation span must arrive once it is back.
 * Both drivers run side by side, each with its own backend.
 */
describe('a 150 s outage of the trace backend, default settings', () => {
  it('loses no evaluation with either driver', async () => {
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
        const traces = Array.from({ length: 4 }, () =>
          sdkAgentTrace('weather-lisbon', ['get_weather']),
        );
        for (const spans of traces) {
          const response = await fetch(service.url!, {
            method: 'POST',
            headers: { 'content-type': 'application/x-protobuf' },
            body: ProtobufTraceSerializer.serializeRequest(spans)!,
          });
          expect(response.status).toBe(200);
        }
        return { driver, backend, traceIds: traces.map(t => t[0]!.spanContext().traceId) };
      }),
    );
    await new Promise(r => setTimeout(r, OUTAGE_MS));
    for (const { backend } of drivers) {
      expect(backend.spans).toHaveLength(0);
      expect(backend.requests()).toBeGreaterThan(4); // it was retried during the outage
      backend.down = false;
    }
    for (const { driver, backend, traceIds } of drivers) {
      await waitFor(
        () => new Set(backend.spans.map(s => `${s.traceId}/${s.spanId}`)).size === 8,
        `${driver}: every evaluation span after the outage`,
        90_000,
      );
      expect([...new Set(backend.spans.map(s => s.traceId))].sort()).toEqual([...traceIds].sort());
    }
  }, 400_000);
});
