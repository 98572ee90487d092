/**
 * Accepted means scored, across a worker outage longer than the span buffer's old TTL: real
 * processes (`serve --no-worker`, then `worker`) on a real Redis, an agent sending one trace a
 * second with the real OTLP exporter. Before, a buffered trace's spans expired 2 × maxWaitMs +
 * 60 s after its first span (62 s here) whatever its job did, and the traces accepted early in the
 * outage were lost without a record. Now every accepted trace is scored once workers return, and
 * traces sent during the recovery are scored too. Counts are compared: accepted = scored, and no
 * trace expired.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bullmqCliEnv, useProcessFixtures } from '../helpers/process-fixtures.js';
import { redisFor, testPrefix, waitFor } from '../helpers/redis.js';
import { resultRows } from '../helpers/result-rows.js';
import { sendSpans } from '../helpers/send-spans.js';
import { sdkAgentTrace } from '../helpers/sdk-spans.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const DEMO_SUITE = join(ROOT, 'config/suites/demo.yaml');
/** The old TTL with maxWaitMs 1000: 2 × 1 s + 60 s. The outage lasts longer. */
const OLD_TTL_MS = 62_000;

const { cleanups, run, backend } = useProcessFixtures();

describe('a worker outage longer than the old span TTL, under steady traffic', () => {
  it('loses no accepted trace: all are scored when a worker starts, and new ones too', async () => {
    const prefix = testPrefix();
    const redis = redisFor(prefix);
    cleanups.push(() => redis.cleanup());
    const otlp = await backend();
    const results = join(mkdtempSync(join(tmpdir(), 'spanscore-outage-')), 'results.jsonl');
    const env = bullmqCliEnv(prefix, otlp.url, {
      SPANSCORE_MAX_WAIT_MS: '1000',
      SPANSCORE_RESULTS_FILE: results,
    });
    const serve = run(['serve', '--no-worker', '--port', '0', '--host', '127.0.0.1'], env);
    const url = (await serve.waitForLine(/listening on (\S+) \(bullmq driver\)/))[1]!;

    const accepted: string[] = [];
    let sending = true;
    const sender = (async () => {
      while (sending) {
        const spans = sdkAgentTrace('weather-lisbon', ['get_weather']);
        await sendSpans(url, spans); // rejects if the receiver refused it for good
        accepted.push(spans[0]!.spanContext().traceId);
        await new Promise(r => setTimeout(r, 1000));
      }
    })();

    // No worker for longer than the old TTL.
    await new Promise(r => setTimeout(r, OLD_TTL_MS + 8_000));
    const beforeWorker = accepted.length;
    expect(beforeWorker).toBeGreaterThan(50);
    expect(resultRows(results)).toEqual([]);

    const worker = run(['worker', '--suite', DEMO_SUITE], env);
    await worker.waitForLine(/taking traces from Redis/);
    // Traffic goes on during the recovery, then stops.
    await new Promise(r => setTimeout(r, 5_000));
    sending = false;
    await sender;

    const scored = () => new Set(resultRows(results).map(r => r.traceId));
    await waitFor(
      () => {
        const done = scored();
        return accepted.every(id => done.has(id));
      },
      `all ${accepted.length} accepted traces scored`,
      60_000,
    );
    expect(accepted.length).toBeGreaterThan(beforeWorker);
    expect(scored().size).toBe(accepted.length);
    // Each once, by both of the demo suite's scorers.
    expect(resultRows(results)).toHaveLength(2 * accepted.length);
    expect(worker.stderr()).not.toMatch(/expired/);
    await waitFor(() => otlp.spans.length === 2 * accepted.length, 'every evaluation span');
  }, 150_000);
});
