import { afterEach, describe, expect, it } from 'vitest';
import { runCli as run } from '../helpers/run-cli.js';
import { loadConfig } from '../../src/config/load-config.js';
import { startService } from '../../src/server/start-service.js';
import { REDIS_URL, redisFor, testPrefix, waitFor } from '../helpers/redis.js';
import { sendRun } from '../helpers/results-traffic.js';
import { switchableExporter } from '../helpers/switchable-exporter.js';

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

interface Report {
  counts: Record<string, Record<string, number>>;
  jobs: Array<{
    queue: string;
    traceId: string;
    state: string;
    reason: string;
    attemptsMade: number;
  }>;
}

describe('spanscore jobs', () => {
  it('lists failed work with its reason and re-drives it, by filter, while a worker runs', async () => {
    const prefix = testPrefix();
    const redis = redisFor(prefix);
    closers.push(() => redis.cleanup());
    process.env.REDIS_URL = REDIS_URL;
    process.env.SPANSCORE_REDIS_PREFIX = prefix;
    closers.push(() => {
      delete process.env.REDIS_URL;
      delete process.env.SPANSCORE_REDIS_PREFIX;
      return Promise.resolve();
    });
    // A failure's reason may hold any text (a backend's answer, a trace's tool name): an escape
    // sequence (here: clear the screen) and a bidirectional override must not reach the terminal.
    const backend = switchableExporter('backend down \u001b[2J\u202e');
    const written = backend.written;
    const service = await startService(
      await loadConfig({
        overrides: {
          'receiver.port': 0,
          'receiver.host': '127.0.0.1',
          'assembly.settleMs': 50,
          'worker.attempts': 1,
          'export.retryMaxAgeMs': 1, // give up at the first failure
          'export.logResults': false,
          suites: [new URL('../../config/suites/demo.yaml', import.meta.url).pathname],
        },
      }),
      { receiver: true, workers: true },
      {
        log: () => undefined,
        exporter: backend.exporter,
      },
    );
    closers.push(() => service.close());
    const ids: string[] = [];
    for (const tools of [['get_weather'], ['search_web']]) {
      ids.push(await sendRun(service.url!, { name: 'x', testCaseId: 'weather-lisbon', tools }));
    }
    const report = async (): Promise<Report> =>
      JSON.parse((await run(['jobs', '--json'])).stdout) as Report;
    await waitFor(async () => (await report()).counts.trace!.failed === 2, 'two failed trace jobs');

    const listed = await run(['jobs']);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(
      /^trace {2}waiting 0, delayed 0, active 0, failed 2, completed 0$/m,
    );
    for (const id of ids)
      expect(listed.stdout).toMatch(
        new RegExp(`^failed +trace +trace ${id} attempts 1 .*backend down \uFFFD\\[2J\uFFFD`, 'm'),
      );
    expect(listed.stdout).not.toContain('\u001b');
    expect(listed.stdout).not.toContain('\u202e');

    backend.up();
    // The export breaker opened at the first failure and tries the backend again at most once a
    // second: past that second, the re-driven job's export is a real request.
    await new Promise(r => setTimeout(r, 1100));
    const one = await run(['jobs', 'retry', '--failed', '--filter', ids[0]!]);
    expect(one.code).toBe(0);
    expect(one.stderr).toContain('1 failed job(s) moved back to waiting');
    await waitFor(() => written.has(ids[0]!), 'the re-driven trace is written');
    expect(written.has(ids[1]!)).toBe(false);
    expect((await report()).counts.trace).toMatchObject({ failed: 1 });

    const rest = await run(['jobs', 'retry', '--failed', '--queue', 'trace']);
    expect(rest.stderr).toContain('1 failed job(s) moved back to waiting');
    await waitFor(() => written.has(ids[1]!), 'the other trace is written');
    expect((await report()).counts.trace).toMatchObject({ failed: 0, waiting: 0, delayed: 0 });
  }, 30_000);

  it('says it needs Redis with the memory driver, and refuses a retry without --failed', async () => {
    const memory = await run(['jobs']);
    expect(memory.code).toBe(2);
    expect(memory.stderr).toContain(
      'spanscore jobs: needs the bullmq driver (set REDIS_URL or REDIS_CLUSTER_NODES)',
    );
    const bare = await run(['jobs', 'retry']);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain("required option '--failed' not specified");
  });
});
