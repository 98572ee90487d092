/**
 * Redis away between a trace's export and its scored mark (bullmq driver): the export succeeded,
 * so the mark must not turn into a failed job whose retry scores and exports the trace again.
 * The OTLP backend makes Redis go away as the first export arrives, before answering it: the
 * worker's mark comes right after. Same style as faults.test.ts (a private Redis, the service in
 * this process, the real exporter).
 */
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { bufferKeyOf } from '../../src/redis/redis-span-buffer.js';
import {
  expectedIds,
  receivedIds,
  SCORERS,
  serviceOnPrivateRedis as onPrivateRedis,
  weatherRuns,
} from '../helpers/demo-fault-service.js';
import type { OtlpBackend } from '../helpers/otlp-backend.js';
import { useProcessFixtures } from '../helpers/process-fixtures.js';
import { waitFor } from '../helpers/redis.js';
import type { RedisServer } from '../helpers/redis-server.js';
import { sendSpans } from '../helpers/send-spans.js';

const { cleanups, backend } = useProcessFixtures();

const traceIdOf = (run: ReadableSpan[]): string => run[0]!.spanContext().traceId;

/** The service on a private Redis; a failed job is retried after 200 ms. */
const serviceOnPrivateRedis = (otlp: OtlpBackend) =>
  onPrivateRedis(otlp, cleanups, { 'worker.backoffMs': 200 });

/** Sends `runs`, waits for their evaluation spans, and checks each arrived once and was marked. */
async function scoredOnce(
  otlp: OtlpBackend,
  url: string,
  redis: RedisServer,
  runs: ReadableSpan[][],
  scoredBefore: ReadableSpan[][] = [],
): Promise<void> {
  for (const r of runs) await sendSpans(url, r, 30_000);
  const all = [...scoredBefore, ...runs];
  await waitFor(
    () => otlp.spans.length >= all.length * SCORERS.length,
    'every trace scored',
    30_000,
  );
  const check = new Redis(redis.url);
  cleanups.push(async () => void check.disconnect());
  const unmarked = async () =>
    (
      await Promise.all(all.map(r => check.hget(bufferKeyOf('spanscore', traceIdOf(r)), 'scored')))
    ).filter(s => s === null).length;
  await waitFor(async () => (await unmarked()) === 0, 'every trace marked scored', 30_000);
  // A job retried after failing to mark would export again within its backoff (200 ms) of Redis
  // coming back, and so before the mark's own retry succeeds: a margin past that (an absence).
  await new Promise(r => setTimeout(r, 1500));
  expect(receivedIds(otlp)).toEqual(expectedIds(all)); // each exactly once
}

describe('Redis away right after an export: the trace is marked scored, not exported again', () => {
  it('paused for writes (CLIENT PAUSE 5000 WRITE) as the first export arrives: the mark times out after 3 s and is retried, each evaluation span arrives once', async () => {
    const otlp = await backend();
    const { service, redis } = await serviceOnPrivateRedis(otlp);
    cleanups.push(async () => void redis.cli('CLIENT', 'UNPAUSE'));
    otlp.onRequest = n => {
      if (n === 1) expect(redis.cli('CLIENT', 'PAUSE', '5000', 'WRITE')).toBe('OK');
    };
    await scoredOnce(otlp, service.url!, redis, weatherRuns(1));
  });

  it('stopped as an export arrives and started again 1 s later: the mark, refused at once (it never ran), is retried instead of the job, which would score and export the trace again', async () => {
    const otlp = await backend();
    const { service, redis } = await serviceOnPrivateRedis(otlp);
    const [first, second] = weatherRuns(2);
    // A first trace, then the second's export stops Redis. Whether the export backlog looks at
    // Redis after it (at most once a second) or not, that look is bookkeeping and fails nothing:
    // the mark is what must not fail the job.
    await sendSpans(service.url!, first!);
    await waitFor(() => otlp.spans.length >= SCORERS.length, 'the first trace exported');
    otlp.onRequest = async n => {
      if (n !== 2) return;
      await redis.stop();
      setTimeout(() => void redis.start(), 1000);
    };
    await sendSpans(service.url!, second!);
    await waitFor(() => otlp.requests() >= 2, "the second trace's export");
    await scoredOnce(otlp, service.url!, redis, [], [first!, second!]);
  });
});
