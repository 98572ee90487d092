/**
 * Fault injection: workers killed, Redis stopped, the export backend down, SIGTERM under load,
 * backpressure. Real processes, a real Redis (a private `redis-server` where the test stops it),
 * the real OTel exporter. Run by `npm run test:faults` (they take over a minute) and by `.ci/run`.
 * The judge's faults (429, 500, garbage, hangs) are in test/integration/llm-worker.test.ts and
 * llm-judge.test.ts.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { scrapeMetric } from '../helpers/scrape-metric.js';
import { createEvaluationExporter } from '../../src/emit/otlp-evaluation-exporter.js';
import { startService } from '../../src/server/start-service.js';
import { resultRows } from '../helpers/result-rows.js';
import { sendSpans } from '../helpers/send-spans.js';
import { bullmqCliEnv, useProcessFixtures } from '../helpers/process-fixtures.js';
import { REDIS_URL, redisFor, testPrefix, waitFor } from '../helpers/redis.js';
import {
  DEMO_SUITE,
  expectedIds,
  receivedIds,
  SCORERS,
  serviceConfig,
  serviceOnPrivateRedis,
  weatherRuns,
} from '../helpers/demo-fault-service.js';

const ROOT = new URL('../../', import.meta.url).pathname;

const { cleanups, run, backend } = useProcessFixtures();

/** One plain OTLP/protobuf POST (no exporter retries), to see the receiver's own answer. */
const postOnce = (url: string, spans: ReadableSpan[]): Promise<Response> =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-protobuf' },
    body: ProtobufTraceSerializer.serializeRequest(spans)!,
  });

describe('fault injection', () => {
  it('a worker killed with SIGKILL mid-export: another worker recovers the stalled job, and every evaluation span arrives with its derived id', async () => {
    const prefix = testPrefix();
    cleanups.push(redisFor(prefix).cleanup);
    const otlp = await backend();
    otlp.hang = true; // the first worker's exports never finish
    const env = bullmqCliEnv(prefix, otlp.url, {
      SPANSCORE_LOCK_DURATION_MS: '1000',
      SPANSCORE_STALLED_INTERVAL_MS: '500',
    });
    const serve = run(
      ['serve', '--no-worker', '--port', '0', '--host', '127.0.0.1', '--suite', DEMO_SUITE],
      env,
    );
    const url = (await serve.waitForLine(/listening on (\S+) \(bullmq driver\)/))[1]!;
    const victim = run(['worker', '--suite', DEMO_SUITE], env);
    await victim.waitForLine(/taking traces from Redis/);

    const runs = weatherRuns(3);
    for (const r of runs) await sendSpans(url, r);
    await waitFor(() => otlp.requests() >= 1, 'the first worker to be exporting');
    victim.child.kill('SIGKILL');
    await victim.exited;
    otlp.hang = false; // only for new requests: the dead worker's stay held, never counted

    const rescuer = run(['worker', '--suite', DEMO_SUITE], env);
    await rescuer.waitForLine(/taking traces from Redis/);
    await waitFor(
      () => new Set(receivedIds(otlp)).size === runs.length * SCORERS.length,
      'every evaluation span, after the stalled-job check',
      20_000,
    );
    expect(receivedIds(otlp)).toEqual(expectedIds(runs)); // each once, with its derived id
    expect(rescuer.stderr()).not.toMatch(/failed/);
    rescuer.child.kill('SIGTERM');
    serve.child.kill('SIGTERM');
    expect(await rescuer.exited).toBe(0);
    expect(await serve.exited).toBe(0);
  });

  it('Redis stopped during ingest and started again: 503 with Retry-After meanwhile, the real exporter retries, and every trace is scored once', async () => {
    const otlp = await backend();
    const { service, redis } = await serviceOnPrivateRedis(otlp, cleanups);

    const before = weatherRuns(3);
    for (const r of before) await sendSpans(service.url!, r);
    await redis.stop();

    const refused = weatherRuns(1)[0]!;
    const during = await postOnce(service.url!, refused);
    expect(during.status).toBe(503);
    expect(Number(during.headers.get('retry-after'))).toBeGreaterThan(0);
    const backpressure = async () =>
      (await scrapeMetric(service.metricsUrl!, 'spanscore_spans_backpressure_total', {
        reason: 'unavailable',
      })) ?? 0;
    const refusedBefore = await backpressure();
    // /metrics answers during the outage: the gauges read from Redis have no value, counted.
    expect(
      await scrapeMetric(service.metricsUrl!, 'spanscore_metrics_read_failures_total', {
        gauge: 'spanscore_jobs',
      }),
    ).toBeGreaterThan(0);
    expect(refusedBefore).toBe(refused.length);

    // Sent while Redis is down: the exporter is answered 503 (counted) and retries after
    // Retry-After; Redis comes back once both traces were refused at least once.
    const outage = weatherRuns(2);
    const sending = Promise.all(outage.map(r => sendSpans(service.url!, r, 30_000)));
    await waitFor(
      async () => (await backpressure()) >= refusedBefore + outage.flat().length,
      'both outage traces refused with 503',
    );
    await redis.start();
    await sending;
    const after = weatherRuns(2);
    for (const r of after) await sendSpans(service.url!, r);

    const all = [...before, ...outage, ...after];
    await waitFor(
      () => otlp.spans.length >= all.length * SCORERS.length,
      'every trace scored',
      30_000,
    );
    await new Promise(r => setTimeout(r, 500)); // nothing more may come
    expect(receivedIds(otlp)).toEqual(expectedIds(all)); // each exactly once
  });

  it('Redis slow: a request gets 503 after the 3 s command timeout instead of waiting for Redis; retries are scored once', async () => {
    const otlp = await backend();
    const { service, redis } = await serviceOnPrivateRedis(otlp, cleanups);
    cleanups.push(async () => void redis.cli('CLIENT', 'UNPAUSE'));

    const before = weatherRuns(2);
    for (const r of before) await sendSpans(service.url!, r);
    expect(redis.cli('CLIENT', 'PAUSE', '8000', 'WRITE')).toBe('OK');
    const [slow] = weatherRuns(1);
    const answer = await postOnce(service.url!, slow!);
    expect(answer.status).toBe(503); // had it waited for Redis, the pause's end would give 200
    expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(0);
    // The timed-out append still runs when the pause ends: the spans may be stored already. The
    // exporter's retry stores them again; the worker reads each span id once.
    await sendSpans(service.url!, slow!, 30_000);
    const after = weatherRuns(2);
    for (const r of after) await sendSpans(service.url!, r, 30_000);

    const all = [...before, slow!, ...after];
    await waitFor(
      () => otlp.spans.length >= all.length * SCORERS.length,
      'every trace scored',
      30_000,
    );
    await new Promise(r => setTimeout(r, 500)); // nothing more may come (an absence: no event)
    expect(receivedIds(otlp)).toEqual(expectedIds(all)); // each exactly once
    const slowRows = otlp.spans.filter(s => s.traceId === slow![0]!.spanContext().traceId);
    expect(slowRows.map(s => s.attributes['gen_ai.evaluation.score.value'])).toEqual([1, 1]);
  });

  it('the export backend down for a while: evaluation jobs retry and the spans arrive when it returns', async () => {
    const prefix = testPrefix();
    cleanups.push(redisFor(prefix).cleanup);
    const otlp = await backend();
    otlp.down = true;
    const config = await serviceConfig(REDIS_URL, {
      'queue.prefix': prefix,
      'worker.backoffMs': 200,
      'worker.attempts': 8,
    });
    const failures: string[] = [];
    const service = await startService(
      config,
      { receiver: true, workers: true },
      {
        log: line => void (line.includes('failed') && failures.push(line)),
        exporter: createEvaluationExporter({ url: otlp.url, timeoutMillis: 1000 }),
      },
    );
    cleanups.push(() => service.close());
    const runs = weatherRuns(4);
    for (const r of runs) await sendSpans(service.url!, r);
    await waitFor(() => failures.length >= 4, 'export failures while the backend is down', 20_000);
    expect(otlp.spans).toHaveLength(0);
    otlp.down = false;
    await waitFor(
      () => new Set(receivedIds(otlp)).size === runs.length * SCORERS.length,
      'the spans once the backend is back',
      30_000,
    );
    expect([...new Set(receivedIds(otlp))].sort()).toEqual(expectedIds(runs));
    expect(failures.find(l => l.includes(' attempt '))).toMatch(
      /attempt \d+ failed: exporting \d+ evaluation span\(s\) failed/,
    );
    // The failing export is also said once, where it goes and how to turn export off.
    expect(failures.filter(l => l.startsWith('spanscore: exporting evaluation spans'))).toEqual([
      expect.stringMatching(
        /^spanscore: exporting evaluation spans to the configured exporter failed: .*\(retried; results are stored; SPANSCORE_EXPORT=false turns export off\)$/,
      ),
    ]);
  });

  it("a worker killed with SIGKILL while a trace's log records wait in Redis for its spans: a new worker scores the trace with the tool calls of its logs", async () => {
    const prefix = testPrefix();
    cleanups.push(redisFor(prefix).cleanup);
    const otlp = await backend();
    const results = join(mkdtempSync(join(tmpdir(), 'spanscore-logs-kill-')), 'r.jsonl');
    const suite = join(ROOT, 'config/suites/framework-captures.yaml');
    const env = bullmqCliEnv(prefix, otlp.url, { SPANSCORE_SETTLE_MS: '500' });
    const serve = run(
      ['serve', '--no-worker', '--port', '0', '--host', '127.0.0.1', '--suite', suite],
      env,
    );
    const url = (await serve.waitForLine(/listening on (\S+) \(bullmq driver\)/))[1]!;
    const victim = run(['worker', '--suite', suite, '--results', results], env);
    await victim.waitForLine(/taking traces from Redis/);
    // What the OpenTelemetry OpenAI instrumentation sent: the logs first, as its 1 s log batches
    // usually beat the 5 s span batches.
    const [traces, logs] = JSON.parse(
      readFileSync(
        join(ROOT, 'test/fixtures/otlp/captured-opentelemetry-openai-0.21.0.otlp.json'),
        'utf8',
      ),
    ) as [unknown, unknown];
    const post = (path: string, body: unknown) =>
      fetch(url.replace(/\/v1\/traces$/, path), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect((await post('/v1/logs', logs)).status).toBe(200);
    // Time for the worker to take the jobs of the log records before it is killed. Whether it
    // took them or not cannot be read from outside its process; either way every run must end
    // scored by the rescuer, exactly once, which is what is checked below.
    await new Promise(r => setTimeout(r, 300));
    victim.child.kill('SIGKILL');
    await victim.exited;
    expect(resultRows(results)).toEqual([]);
    expect((await post('/v1/traces', traces)).status).toBe(200);

    const rescuer = run(['worker', '--suite', suite, '--results', results], env);
    await rescuer.waitForLine(/taking traces from Redis/);
    await waitFor(() => resultRows(results).length === 6, 'three runs × two scorers', 20_000);
    const rows = resultRows(results);
    expect(rows.map(r => `${r.testCaseId} ${r.scorer} ${r.label}`).sort()).toEqual([
      'one-tool tool_correctness pass',
      'one-tool tool_trajectory pass',
      'same-tool-twice tool_correctness pass',
      'same-tool-twice tool_trajectory pass',
      'two-tools-in-order tool_correctness pass',
      'two-tools-in-order tool_trajectory pass',
    ]);
    expect(rows.find(r => r.testCaseId === 'two-tools-in-order')!.toolsUsed).toEqual([
      'search_flights',
      'book_flight',
    ]);
    rescuer.child.kill('SIGTERM');
    serve.child.kill('SIGTERM');
    expect(await rescuer.exited).toBe(0);
    expect(await serve.exited).toBe(0);
  });

  it('SIGTERM under load: the worker finishes or hands back its jobs, a new worker scores the rest, nothing is lost or doubled', async () => {
    const prefix = testPrefix();
    cleanups.push(redisFor(prefix).cleanup);
    const otlp = await backend(50); // slow enough that jobs are in flight at the signal
    const results = join(mkdtempSync(join(tmpdir(), 'spanscore-sigterm-load-')), 'r.jsonl');
    const env = bullmqCliEnv(prefix, otlp.url);
    const serve = run(
      ['serve', '--no-worker', '--port', '0', '--host', '127.0.0.1', '--suite', DEMO_SUITE],
      env,
    );
    const url = (await serve.waitForLine(/listening on (\S+) \(bullmq driver\)/))[1]!;
    const first = run(['worker', '--suite', DEMO_SUITE, '--results', results], env);
    await first.waitForLine(/taking traces from Redis/);

    const runs = weatherRuns(40);
    let sent = 0;
    const load = (async () => {
      for (const r of runs) {
        await sendSpans(url, r);
        sent++;
        await new Promise(res => setTimeout(res, 25));
      }
    })();
    await waitFor(() => otlp.spans.length >= 10, 'scoring under way');
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);
    const scoredByFirst = new Set(receivedIds(otlp)).size;
    const second = run(['worker', '--suite', DEMO_SUITE, '--results', results], env);
    await load;
    expect(sent).toBe(40);
    await waitFor(
      () => otlp.spans.length >= runs.length * SCORERS.length,
      'every trace scored',
      30_000,
    );
    await new Promise(r => setTimeout(r, 500)); // nothing more may come (an absence: no event)
    expect(receivedIds(otlp)).toEqual(expectedIds(runs)); // each span once: none lost, none doubled
    expect(scoredByFirst).toBeGreaterThan(0);
    expect(scoredByFirst).toBeLessThan(runs.length * SCORERS.length);
    expect(resultRows(results)).toHaveLength(runs.length * SCORERS.length);
    second.child.kill('SIGTERM');
    serve.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
    expect(await serve.exited).toBe(0);
  });

  it('backpressure: past the queue bound the receiver answers 429 with Retry-After, and takes spans again once a worker drains it', async () => {
    const prefix = testPrefix();
    cleanups.push(redisFor(prefix).cleanup);
    const otlp = await backend();
    const config = await serviceConfig(REDIS_URL, {
      'queue.prefix': prefix,
      'assembly.maxQueuedTraces': 5,
    });
    const hooks = { log: () => undefined, exporter: createEvaluationExporter({ url: otlp.url }) };
    const receiver = await startService(config, { receiver: true, workers: false }, hooks);
    cleanups.push(() => receiver.close());
    const post = async (r: ReadableSpan[]): Promise<number> =>
      (await postOnce(receiver.url!, r)).status;
    const statuses: number[] = [];
    const runs = weatherRuns(8);
    for (const r of runs) {
      statuses.push(await post(r));
      await new Promise(res => setTimeout(res, 1100)); // the backlog is counted once a second
      if (statuses.at(-1) === 429) break;
    }
    expect(statuses.slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
    expect(statuses.at(-1)).toBe(429);
    const refused = runs[statuses.length - 1]!;
    const raw = await postOnce(receiver.url!, refused);
    expect(raw.status).toBe(429);
    expect(Number(raw.headers.get('retry-after'))).toBeGreaterThan(0);

    const workers = await startService(config, { receiver: false, workers: true }, hooks);
    cleanups.push(() => workers.close());
    const accepted = runs.slice(0, statuses.length - 1);
    await waitFor(
      () => otlp.spans.length >= accepted.length * SCORERS.length,
      'the backlog drained',
      20_000,
    );
    await new Promise(r => setTimeout(r, 1100)); // the receiver recounts the backlog once a second
    const late = weatherRuns(1);
    expect(await post(late[0]!)).toBe(200);
    await waitFor(
      () => otlp.spans.length === (accepted.length + 1) * SCORERS.length,
      'the new trace scored',
    );
    expect(receivedIds(otlp)).toEqual(expectedIds([...accepted, ...late]));
  });
});
