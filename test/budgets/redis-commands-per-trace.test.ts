import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { agentSpans } from '../../bench/reading-bench.js';
import { LOAD_SUITE_YAML } from '../../bench/load-bench.js';
import type { EvaluationSpan } from '../../src/emit/score-to-span.js';
import { loadConfig } from '../../src/config/load-config.js';
import { startService } from '../../src/server/start-service.js';
import { waitFor } from '../helpers/redis.js';
import { commandCalls } from '../helpers/command-calls.js';
import { startRedisServer } from '../helpers/redis-server.js';

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

/**
 * The BullMQ driver's Redis work per scored trace, counted (not timed): the load benchmark's
 * workload (20-span agent traces, 512 spans a request, a suite of two scorers) through a receiver
 * and a worker on a Redis server of the test's own, so that no other test's commands are counted.
 * The budget is {@link BUDGET} commands a trace, every command inside a Lua script included: span
 * buffer, claim and read, BullMQ's job life, run record, results stream, per-minute counters.
 */
const REQUESTS = 40;
/**
 * Measured 12.05–12.14 (11.85–11.88 before a worker's deliveries ran outside its scoring slots:
 * it now takes jobs ahead of them, and fetches some on their own instead of with the completion
 * of the one before; the load benchmark's closed loop counts 11.8 either way). Issue 48 asks for 12; the one command a trace that would leave room, the
 * claim's `HSETNX`, was once taken at append time for the job of the request bringing the root,
 * and the fault suite showed why it cannot be: when the append lands and the job's add fails (Redis
 * slow, a master failing over), the retried request's job finds the trace claimed by a job that
 * never existed, and the trace is never scored. The claim stays where the job reads the trace.
 */
const BUDGET = 12.5;
/** Requests in flight at once (the load benchmark's connections). */
const CONNECTIONS = 8;

describe('bullmq driver: Redis commands per scored trace', () => {
  // Results layout 2 writes the same commands (a SET a trace, a script call a batch), one round
  // trip more a batch: its results' entry first, for the run records to point at.
  it.each([1, 2] as const)(
    `stays within ${BUDGET} on the benchmark workload, results layout %i`,
    async layout => {
      const server = await startRedisServer();
      closers.push(() => server.stop());
      const dir = mkdtempSync(join(tmpdir(), 'spanscore-budget-'));
      writeFileSync(join(dir, 'suite.yaml'), LOAD_SUITE_YAML);
      const exported = new Map<string, number>();
      const service = await startService(
        await loadConfig({
          env: {},
          overrides: {
            'queue.driver': 'bullmq',
            'queue.redisUrl': server.url,
            'receiver.port': 0,
            'receiver.host': '127.0.0.1',
            'assembly.settleMs': 200,
            'export.logResults': false,
            'results.layout': layout,
            suites: [join(dir, 'suite.yaml')],
          },
        }),
        { receiver: true, workers: true },
        {
          log: () => undefined,
          exporter: {
            export: (spans: readonly EvaluationSpan[]) => {
              for (const s of spans) exported.set(s.traceId, (exported.get(s.traceId) ?? 0) + 1);
              return Promise.resolve();
            },
            shutdown: () => Promise.resolve(),
          },
        },
      );
      closers.push(() => service.close());
      const redis = new Redis(server.url);
      closers.push(() => redis.quit());
      // 40 requests (1,024 traces), so that what runs per second rather than per trace (BullMQ's
      // polling, the per-minute counters) weighs as little as in a steady load.
      const bodies = agentSpans(REQUESTS, 11).map(batch =>
        Buffer.from(ProtobufTraceSerializer.serializeRequest(batch)!),
      );
      const traces = (REQUESTS * 512) / 20;
      const before = await commandCalls(redis);
      // Sent over CONNECTIONS connections at once, as the load benchmark does: a steady load keeps
      // the worker's queue deep. (Sent one at a time, the worker keeps up with the receiver and,
      // with job slots free beside its scoring slot, BullMQ fetches each job as it comes due: 12.6
      // on this workload, against 12.1 this way.)
      const statuses = await Promise.all(
        Array.from({ length: CONNECTIONS }, async (_, c) => {
          const seen: number[] = [];
          for (let i = c; i < bodies.length; i += CONNECTIONS) {
            const response = await fetch(service.url!, {
              method: 'POST',
              headers: { 'content-type': 'application/x-protobuf' },
              body: bodies[i],
            });
            seen.push(response.status);
          }
          return seen;
        }),
      );
      expect(statuses.flat()).toEqual(bodies.map(() => 200));
      await waitFor(
        () => exported.size === traces && [...exported.values()].every(n => n === 2),
        `the ${traces} traces scored, two evaluation spans each`,
        30_000,
      );
      // Run records are written off the job's path, in batches: counted once all are in.
      let after = await commandCalls(redis);
      await waitFor(
        async () =>
          ((after = await commandCalls(redis)).get('set') ?? 0) - (before.get('set') ?? 0) >=
          traces,
        'every run record written',
      );
      const perTrace = new Map<string, number>();
      let total = 0;
      for (const [name, calls] of after) {
        const n = calls - (before.get(name) ?? 0);
        if (n === 0 || name === 'info') continue;
        perTrace.set(name, n / traces);
        total += n;
      }
      const detail = [...perTrace]
        .sort((a, b) => b[1] - a[1])
        .map(([name, n]) => `${name} ${n.toFixed(2)}`)
        .join(', ');
      console.log(
        `layout ${layout}: commands per trace: ${(total / traces).toFixed(2)}: ${detail}`,
      );
      expect(total / traces, `commands per trace: ${detail}`).toBeLessThanOrEqual(BUDGET);
      // The count is of real work: every trace went through the buffer, its job and its record.
      expect(perTrace.get('set') ?? 0, detail).toBeGreaterThanOrEqual(1);
      expect(perTrace.get('evalsha') ?? 0, detail).toBeGreaterThanOrEqual(1);
    },
    60_000,
  );
});
