/**
 * What a hostile trace makes the results store keep and the API and results page send: a trace
 * of failing tool calls, each named by 1,024 characters, scored by tool health. Each of its three
 * results kept the whole reason (naming every failed call with its error) and both tool lists:
 * with 2,000 calls, 14.8 MB of `/api/v1/results` for one trace, and twelve such traces (18 KB of
 * gzip each) ran the memory driver's 192 MB heap out: `serve` died (SIGABRT).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { RESULT_BOUNDS } from '../../src/results/result-bounds.js';
import type { StoredResult } from '../../src/results/stored-result.js';
import { startLiveService } from '../helpers/live-service.js';
import { gzipRequest, longFailingTrace, longToolName } from '../helpers/long-failing-trace.js';
import { traceId } from '../helpers/otlp-json-builder.js';
import { useProcessFixtures } from '../helpers/process-fixtures.js';
import { waitFor } from '../helpers/redis.js';

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});
const { run } = useProcessFixtures();

const NAME_CHARS = 1024;

async function send(origin: string, n: number, calls: number): Promise<number> {
  const response = await fetch(`${origin}/v1/traces`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    body: gzipRequest(longFailingTrace(n, calls, NAME_CHARS)),
  });
  return response.status;
}

async function scored(origin: string, t: string): Promise<void> {
  await waitFor(
    async () => {
      const record = await fetch(`${origin}/api/v1/traces/${t}`);
      return record.ok && ((await record.json()) as { state: string }).state === 'scored';
    },
    `trace ${t} scored`,
    30_000,
  );
}

describe('results of a hostile trace', () => {
  it('keep a bounded reason and tool lists, and say what was cut', async () => {
    const calls = 1000;
    const service = await startLiveService(
      'memory',
      { 'export.enabled': false, 'export.logResults': false },
      closers,
    );
    expect(await send(service.origin, 1, calls)).toBe(200);
    await scored(service.origin, traceId(1));
    const response = await fetch(`${service.origin}/api/v1/results`);
    const text = await response.text();
    const { results } = JSON.parse(text) as { results: StoredResult[] };
    expect(results.map(r => r.scorer).sort()).toEqual([
      'tool_arguments',
      'tool_errors',
      'tool_loops',
    ]);
    // Three results, each at most a reason and two lists of 4,096 characters, and their fields.
    expect(text.length).toBeLessThan(3 * 4 * 4096);
    const { maxTextChars, maxListChars } = RESULT_BOUNDS;
    const kept = Math.floor(maxListChars / NAME_CHARS);
    for (const r of results) {
      expect(r.reason.length).toBeLessThanOrEqual(maxTextChars);
      expect(r.toolSequence).toEqual(
        Array.from({ length: kept }, (_, i) => longToolName(i, NAME_CHARS)),
      );
      expect(r.cut).toEqual(
        expect.arrayContaining([
          `toolSequence: ${kept} of ${calls} items`,
          `toolsUsed: ${kept} of ${calls} items`,
        ]),
      );
    }
    const errors = results.find(r => r.scorer === 'tool_errors')!;
    expect(errors.reason).toHaveLength(maxTextChars);
    expect(errors.reason.endsWith('…')).toBe(true);
    expect(errors.reason.startsWith(`${calls} of ${calls} tool call(s) failed: `)).toBe(true);
    expect(errors.cut!.find(c => c.startsWith('reason: '))).toMatch(
      new RegExp(`^reason: ${maxTextChars} of \\d+ characters$`),
    );
    // The trace's run record shows the same results.
    const record = (await service.get<{ results: StoredResult[] }>(`traces/${traceId(1)}`)).body;
    expect(record.results.map(r => r.reason.length).sort((a, b) => a - b)).toEqual(
      results.map(r => r.reason.length).sort((a, b) => a - b),
    );
  });

  it('do not run the memory driver out of its heap', async () => {
    const cli = run(['serve', '--port', '0', '--host', '127.0.0.1'], {
      SPANSCORE_EXPORT: 'false',
      SPANSCORE_SETTLE_MS: '100',
    });
    const url = (await cli.waitForLine(/listening on (\S+) \(memory driver\)/))[1]!;
    const origin = new URL(url).origin;
    // Twelve traces of 2,000 calls ran it out before; each is scored before the next is sent.
    for (let n = 1; n <= 16; n++) {
      expect(await send(origin, 100 + n, 2000), `trace ${n}`).toBe(200);
      await scored(origin, traceId(100 + n));
    }
    expect((await fetch(`${origin}/healthz`)).status).toBe(200);
    expect(cli.child.exitCode).toBeNull();
  }, 120_000);
});
