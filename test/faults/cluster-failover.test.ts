/**
 * Redis Cluster failover: `serve --no-worker` and two workers on a real 6-node cluster (3 masters,
 * 3 replicas) with 3 queue shards, a master SIGKILLed while traces arrive. Every trace the
 * receiver accepted (the real OTLP exporter retries the 503s of the failover window) must get its
 * evaluation spans, each with its derived id.
 */
import { join } from 'node:path';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { documentedSpanId } from '../helpers/expected-span-ids.js';
import { diagnoseMissingTraces } from '../helpers/failover-diagnosis.js';
import { useProcessFixtures } from '../helpers/process-fixtures.js';
import { startRedisCluster } from '../helpers/redis-cluster.js';
import { testPrefix } from '../helpers/redis.js';
import { sdkAgentTrace } from '../helpers/sdk-spans.js';
import { sendSpans } from '../helpers/send-spans.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const DEMO_SUITE = join(ROOT, 'config/suites/demo.yaml');
const SCORERS = ['tool_call_accuracy', 'tool_correctness']; // the demo suite's
const TRACES = 200;
const KILL_AT = 60;
const SHARDS = 3;

const { cleanups, run, backend } = useProcessFixtures();

describe('Redis Cluster failover', () => {
  it('a master SIGKILLed mid-run: its replica takes over, and every accepted trace gets its evaluation spans', async () => {
    const cluster = await startRedisCluster({ masters: 3, replicasPerMaster: 1 });
    cleanups.push(() => cluster.stop());
    const otlp = await backend();
    const prefix = testPrefix();
    const env = {
      REDIS_CLUSTER_NODES: cluster.nodes.join(','),
      SPANSCORE_REDIS_PREFIX: prefix,
      SPANSCORE_QUEUE_SHARDS: String(SHARDS),
      SPANSCORE_SETTLE_MS: '100',
      // A job whose worker lost its lock in the failover runs again within seconds.
      SPANSCORE_LOCK_DURATION_MS: '5000',
      SPANSCORE_STALLED_INTERVAL_MS: '2000',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: otlp.url,
    };
    const serve = run(
      ['serve', '--no-worker', '--port', '0', '--host', '127.0.0.1', '--suite', DEMO_SUITE],
      env,
    );
    const url = (await serve.waitForLine(/listening on (\S+) \(bullmq driver\)/))[1]!;
    const workers = [
      run(['worker', '--suite', DEMO_SUITE], env),
      run(['worker', '--suite', DEMO_SUITE], env),
    ];
    // A worker starts in a second or two alone, and took past 20 s on a host loaded six times over.
    for (const w of workers) await w.waitForLine(/taking traces from Redis/, 60_000);

    // A trace starts every 40 ms, 200 in all, each sent by the real OTLP exporter, which retries
    // 503s; the master dies after the 60th.
    const runs: ReadableSpan[][] = [];
    const sends: Array<Promise<void>> = [];
    const tookMs: number[] = [];
    const victim = cluster.topology().find(n => n.role === 'master' && n.slots[0]?.[0] === 0)!;
    // A count, not a duration: on a loaded host the loop runs slower, and the failover must still
    // fall with traces before and after it.
    for (let i = 0; i < TRACES; i++) {
      const spans = sdkAgentTrace('weather-lisbon', ['get_weather']);
      runs.push(spans);
      const at = Date.now();
      sends.push(sendSpans(url, spans, 30_000).then(() => void tookMs.push(Date.now() - at)));
      if (i === KILL_AT) {
        // Keys are spread before the crash: every master holds some.
        const masters = cluster.topology().filter(n => n.role === 'master');
        const keysPerMaster = masters.map(m => Number(cluster.cli(m.port, 'dbsize')));
        expect(keysPerMaster.filter(n => n > 0).length).toBe(3);
        cluster.kill(victim.port);
      }
      await new Promise(r => setTimeout(r, 40));
    }
    const sent = await Promise.allSettled(sends);
    const accepted = runs.filter((_, i) => sent[i]!.status === 'fulfilled');
    // The exporter's 30 s covers the failover (2 s node timeout, then the election).
    expect(accepted.length).toBe(runs.length);

    await cluster.waitHealthy();
    const promoted = cluster.topology().find(n => n.role === 'master' && n.slots[0]?.[0] === 0);
    expect(promoted?.port).not.toBe(victim.port);

    const expected = accepted
      .flatMap(r => {
        const traceId = r[0]!.spanContext().traceId;
        return SCORERS.map(s => `${traceId}/${documentedSpanId(traceId, s, 'weather-lisbon')}`);
      })
      .sort();
    const received = (): string[] =>
      [...new Set(otlp.spans.map(s => `${s.traceId}/${s.spanId}`))].sort();
    // Until every evaluation span is in, while they keep coming: on a loaded machine the jobs the
    // failover interrupted run again only after their locks expire and the stalled check finds
    // them. A lost trace stops the progress, and is reported as missing 30 s later.
    for (let count = -1, progressAt = Date.now(); received().length < expected.length;) {
      if (received().length !== count) [count, progressAt] = [received().length, Date.now()];
      if (Date.now() - progressAt > 30_000) break;
      await new Promise(r => setTimeout(r, 250));
    }
    const missing = expected.filter(id => !received().includes(id));
    // For a run that lost traces (in CI, the only trace of why): where the missing traces are
    // (shard, sent before or after the kill, their jobs and buffers, the workers' blocked
    // clients), first and in the assertion's message since CI keeps little output; then what the
    // workers said beside scoring.
    let diagnosis = '';
    if (missing.length) {
      diagnosis = await diagnoseMissingTraces(
        cluster,
        prefix,
        {
          traceIds: runs.map(r => r[0]!.spanContext().traceId),
          killedAfter: KILL_AT,
          shards: SHARDS,
        },
        new Set(missing.map(id => id.split('/')[0]!)),
      );
      console.error(`cluster failover lost traces:\n${diagnosis}`);
      // Each trace scored is a line: only the others (failures, retries, warnings), and the last
      // 60 of them, or CI's kept output ends before the test's own report.
      for (const w of workers) {
        const said = w
          .stderr()
          .split('\n')
          .filter(line => line && !line.startsWith('spanscore: scored trace '));
        console.error(
          `a worker's stderr, all but its scored traces:\n${said.slice(-60).join('\n')}`,
        );
      }
    }
    expect({ missing: missing.length, of: expected.length }, diagnosis).toEqual({
      missing: 0,
      of: expected.length,
    });
    expect(received()).toEqual(expected);
    // The traffic did cross the failover window: sends then waited (Redis) or were retried (503).
    const slowed = tookMs.filter(ms => ms > 1000).length;
    expect(slowed).toBeGreaterThan(0);
    console.info(
      `cluster failover: ${accepted.length} traces accepted, ${slowed} sends slowed past 1 s (slowest ${Math.max(...tookMs)} ms), all evaluated`,
    );
  }, 240_000);
});
