/**
 * A rolling switch of `results.layout` under traffic, both ways: real processes
 * (`serve --no-worker` and workers) on a real Redis, an agent sending a trace every 100 ms with the real
 * OTLP exporter. A worker writing one layout is replaced by one writing the other (started, then
 * the first SIGTERMed) while traces arrive, so that records and results of both layouts, and
 * batches of each, sit side by side on one prefix. Every accepted trace is then read through
 * `serve`'s API (which writes neither): its run record with both results, each listed once.
 */
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { bullmqCliEnv, useProcessFixtures } from '../helpers/process-fixtures.js';
import { redisFor, testPrefix, waitFor } from '../helpers/redis.js';
import { sendSpans } from '../helpers/send-spans.js';
import { sdkAgentTrace } from '../helpers/sdk-spans.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const DEMO_SUITE = join(ROOT, 'config/suites/demo.yaml');

const { cleanups, run, backend } = useProcessFixtures();

describe('switching results.layout worker by worker under traffic', () => {
  it.each([
    [1, 2],
    [2, 1],
  ] as const)(
    'from layout %i to layout %i: every accepted trace read whole, each result listed once',
    async (from, to) => {
      const prefix = testPrefix();
      const redis = redisFor(prefix);
      cleanups.push(() => redis.cleanup());
      const otlp = await backend();
      const env = (layout: number) =>
        bullmqCliEnv(prefix, otlp.url, { SPANSCORE_RESULTS_LAYOUT: String(layout) });
      const serve = run(['serve', '--no-worker', '--port', '0', '--host', '127.0.0.1'], env(from));
      const url = (await serve.waitForLine(/listening on (\S+) \(bullmq driver\)/))[1]!;
      const origin = new URL(url).origin;
      const before = run(['worker', '--suite', DEMO_SUITE], env(from));
      await before.waitForLine(/taking traces from Redis/);

      const accepted: string[] = [];
      let sending = true;
      const sender = (async () => {
        while (sending) {
          const spans = sdkAgentTrace('weather-lisbon', ['get_weather']);
          await sendSpans(url, spans);
          accepted.push(spans[0]!.spanContext().traceId);
          await new Promise(r => setTimeout(r, 100));
        }
      })();
      await waitFor(() => otlp.spans.length >= 20, 'the first worker scoring', 30_000);
      // The other layout's worker joins, then the first leaves (its last batch written on the
      // way out), with traffic going on throughout.
      const after = run(['worker', '--suite', DEMO_SUITE], env(to));
      await after.waitForLine(/taking traces from Redis/);
      await new Promise(r => setTimeout(r, 1_000));
      before.child.kill('SIGTERM');
      expect(await before.exited).toBe(0);
      const count = otlp.spans.length;
      await waitFor(() => otlp.spans.length >= count + 20, 'the second worker scoring', 30_000);
      sending = false;
      await sender;
      await waitFor(
        () => otlp.spans.length >= 2 * accepted.length,
        `evaluation spans of all ${accepted.length} traces`,
        60_000,
      );

      // Records of both layouts are there: layout 2's point at their results ('@' lines).
      const values = await Promise.all(
        accepted.map(id => redis.commands.get(`${prefix}:run:{${id}}`)),
      );
      const pointing = values.filter(v => v?.includes('\n@')).length;
      expect(pointing).toBeGreaterThan(0);
      expect(pointing).toBeLessThan(accepted.length);

      // Every record read whole through serve, whichever worker wrote it.
      await waitFor(
        async () => {
          for (const id of accepted) {
            const r = await fetch(`${origin}/api/v1/traces/${id}`);
            if (r.status !== 200) return false;
            const record = (await r.json()) as { results: unknown[]; resultsDropped?: number };
            if (record.results.length !== 2) return false;
            expect(record.resultsDropped).toBeUndefined();
          }
          return true;
        },
        'every run record with its two results',
        30_000,
      );
      const listed: string[] = [];
      let cursor: string | null = null;
      do {
        const r = await fetch(
          `${origin}/api/v1/results?limit=50${cursor ? `&cursor=${cursor}` : ''}`,
        );
        expect(r.status).toBe(200);
        const page = (await r.json()) as {
          results: Array<{ traceId: string; scorer: string; toolSequence: string[] }>;
          nextCursor: string | null;
        };
        for (const row of page.results) {
          expect(row.toolSequence).toEqual(['get_weather']);
          listed.push(`${row.traceId} ${row.scorer}`);
        }
        cursor = page.nextCursor;
      } while (cursor);
      expect(listed).toHaveLength(2 * accepted.length);
      expect(new Set(listed).size).toBe(2 * accepted.length);
      expect(new Set(listed.map(l => l.split(' ')[0]))).toEqual(new Set(accepted));
    },
    120_000,
  );
});
