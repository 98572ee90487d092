/**
 * Sustained overload: an agent fleet sends about twice what one worker can score, for two minutes,
 * to a real `serve --no-worker` and one `worker` (concurrency 1, a scorer that takes 50 ms a trace:
 * about 20 traces a second) on a real Redis. Every request is either accepted (200) and later
 * scored, or refused with a retryable status and Retry-After once the backlog is older than
 * `admission.maxBacklogAgeMs` (15 s here). Counts are compared: accepted = scored, none expired.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { Queue } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { bullmqCliEnv, useProcessFixtures } from '../helpers/process-fixtures.js';
import { bufferKeyOf } from '../../src/redis/redis-span-buffer.js';
import { redisFor, testPrefix, waitFor } from '../helpers/redis.js';
import { resultRows } from '../helpers/result-rows.js';
import { sdkAgentTrace } from '../helpers/sdk-spans.js';

const SUITE = new URL('../fixtures/overload/suite.yaml', import.meta.url).pathname;
const LOAD_MS = 120_000;
const SENDERS = 2;
const PER_SENDER_PER_S = 20; // 40 traces/s in all, about twice the worker's capacity

const { cleanups, run, backend } = useProcessFixtures();

describe('sustained overload at twice one worker’s capacity', () => {
  it('accepts what it can score and refuses the rest with Retry-After: accepted = scored', async () => {
    const prefix = testPrefix();
    const redis = redisFor(prefix);
    cleanups.push(() => redis.cleanup());
    const otlp = await backend();
    const results = join(mkdtempSync(join(tmpdir(), 'spanscore-overload-')), 'results.jsonl');
    const env = bullmqCliEnv(prefix, otlp.url, {
      SPANSCORE_RESULTS_FILE: results,
      SPANSCORE_CONCURRENCY: '1',
      SPANSCORE_MAX_BACKLOG_AGE_MS: '15000',
    });
    const serve = run(['serve', '--no-worker', '--port', '0', '--host', '127.0.0.1'], env);
    const url = (await serve.waitForLine(/listening on (\S+) \(bullmq driver\)/))[1]!;
    const worker = run(['worker', '--suite', SUITE], env);
    await worker.waitForLine(/taking traces from Redis/);

    const accepted: string[] = [];
    const refused: Array<{ status: number; retryAfter: string | null; body: string }> = [];
    const other: number[] = [];
    const until = Date.now() + LOAD_MS;
    const sender = async (): Promise<void> => {
      while (Date.now() < until) {
        const started = Date.now();
        const spans = sdkAgentTrace('load', ['get_weather']);
        const response = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/x-protobuf' },
          body: ProtobufTraceSerializer.serializeRequest(spans)!,
        });
        if (response.status === 200) accepted.push(spans[0]!.spanContext().traceId);
        else if (response.status === 503 || response.status === 429)
          refused.push({
            status: response.status,
            retryAfter: response.headers.get('retry-after'),
            body: Buffer.from(await response.arrayBuffer()).toString('latin1'),
          });
        else other.push(response.status);
        await new Promise(r =>
          setTimeout(r, Math.max(0, 1000 / PER_SENDER_PER_S - (Date.now() - started))),
        );
      }
    };
    await Promise.all(Array.from({ length: SENDERS }, sender));

    expect(other).toEqual([]);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.every(r => Number(r.retryAfter) >= 1)).toBe(true);
    expect(refused.some(r => r.body.includes('the oldest unscored trace has waited'))).toBe(true);
    const scored = () => new Set(resultRows(results).map(r => r.traceId));
    const loadEnded = Date.now();
    console.log(
      `faults: overload: load over, ${accepted.length} accepted, ${refused.length} refused, ${scored().size} scored so far`,
    );
    // The results file read once per poll: this process also hosts the OTLP backend, which a
    // read per accepted trace (thousands of parses a poll) starves, slowing every export.
    await waitFor(
      () => {
        const done = scored();
        return accepted.every(id => done.has(id));
      },
      `all ${accepted.length} accepted traces scored`,
      120_000,
    ).catch(async (error: unknown) => {
      // Where the traces not scored are: their buffer hashes and their jobs.
      const done = scored();
      const missing = accepted.filter(id => !done.has(id));
      const queue = new Queue('score-trace', { connection: redis.bullmq(), prefix });
      const jobs = await queue.getJobs(['waiting', 'delayed', 'active', 'failed', 'prioritized']);
      const where = await Promise.all(
        missing.slice(0, 5).map(async id => {
          const hash = await redis.commands.hgetall(bufferKeyOf(prefix, id));
          const job = jobs.find(j => JSON.stringify(j.data).includes(id));
          return `${id}: hash ${JSON.stringify({ ...hash, b0: undefined, b1: undefined })}; job ${job ? `${job.id} ${await job.getState()} attempts ${job.attemptsMade} delay ${job.delay}` : 'none'}`;
        }),
      );
      const counts = JSON.stringify(
        await queue.getJobCounts('waiting', 'delayed', 'active', 'failed', 'prioritized'),
      );
      await queue.close();
      throw new Error(
        `${(error as Error).message}: ${done.size} scored, ${missing.length} not; jobs ${counts}\n${where.join('\n')}\nworker log:\n${worker.stderr().slice(-1500)}`,
      );
    });
    console.log(`faults: overload: drained in ${Math.round((Date.now() - loadEnded) / 1000)} s`);
    console.log(
      `faults: overload: ${accepted.length} accepted and scored, ${refused.length} refused with Retry-After, over ${LOAD_MS / 1000} s`,
    );
    expect(scored().size).toBe(accepted.length);
    expect(worker.stderr()).not.toMatch(/expired/);
    await waitFor(() => otlp.spans.length === accepted.length, 'every evaluation span', 60_000);
    const metrics = await (await fetch(url.replace('/v1/traces', '/metrics'))).text();
    expect(metrics).toMatch(/^spanscore_admission_refusals_total\{reason="backlog_age"\} [1-9]/m);
  }, 300_000);
});
