import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { useProcessFixtures } from '../helpers/process-fixtures.js';
import { childPids } from '../helpers/process-tree.js';
import { REDIS_URL, redisFor, testPrefix } from '../helpers/redis.js';
import { sdkAgentTrace } from '../helpers/sdk-spans.js';
import { sendSpans } from '../helpers/send-spans.js';

const { run, cleanups, backend } = useProcessFixtures();
const DEMO_SUITE = 'config/suites/demo.yaml';

const cmdline = (pid: number): string[] =>
  readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

function serve(env: Record<string, string | undefined> = {}) {
  return run(['serve', '--port', '0', '--host', '127.0.0.1', '--suite', DEMO_SUITE], {
    SPANSCORE_EXPORT: 'false',
    SPANSCORE_SETTLE_MS: '100',
    SPANSCORE_MEMORY_THREADS: '1',
    ...env,
  });
}

describe('serve with the memory driver on one thread (queue.memoryThreads: 1) runs the service in a bounded heap', () => {
  it('runs the service in a thread of its own process, bounded to 192 MB, which scores, and says so', async () => {
    const cli = serve();
    const url = (await cli.waitForLine(/listening on (\S+) \(memory driver\)/))[1]!;
    expect(cli.stderr()).toContain(
      'spanscore: memory driver: V8 heap bounded to 192 MB (queue.memoryHeapMb, SPANSCORE_MEMORY_HEAP_MB; raise it with the buffer and results bounds)\n',
    );
    // One process: no second one started again with --max-old-space-size (it held 65 MB idle).
    expect(childPids(cli.child.pid!)).toEqual([]);
    expect(cmdline(cli.child.pid!)).not.toEqual(
      expect.arrayContaining([expect.stringMatching(/^--max-old-space-size/)]),
    );
    await sendSpans(url, sdkAgentTrace('weather-lisbon', ['get_weather']));
    await cli.waitForLine(/scored trace \S+ test case weather-lisbon/);
    // Ctrl-C of a terminal reaches the process's main thread: passed on once, the service shuts
    // down cleanly.
    cli.child.kill('SIGINT');
    expect(await cli.exited).toBe(0);
    expect(cli.stderr().match(/SIGINT: shutting down/g)).toHaveLength(1);
    expect(cli.stderr()).toMatch(/spanscore: stopped\n$/);
    expect(alive(cli.child.pid!)).toBe(false);
  });

  it('the bound is the heap the service runs in: one too small for it ends serve with exit 1, saying which setting to raise', async () => {
    const cli = serve({ SPANSCORE_MEMORY_HEAP_MB: '8' });
    expect(await cli.exited).toBe(1);
    expect(cli.stderr()).toContain(
      'spanscore: the service ran out of its 8 MB heap: raise queue.memoryHeapMb (SPANSCORE_MEMORY_HEAP_MB), or lower assembly.maxBufferedSpans or results.maxResults\n',
    );
    expect(cli.stderr()).not.toContain('listening on');
  });

  it('a second Ctrl-C while the service shuts down exits at once, with 1', async () => {
    // An export the backend holds for a minute keeps the shutdown waiting (its deadline: 10 s).
    const slow = await backend(60_000);
    const cli = serve({ SPANSCORE_EXPORT: 'true', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: slow.url });
    const url = (await cli.waitForLine(/listening on (\S+) \(memory driver\)/))[1]!;
    await sendSpans(url, sdkAgentTrace('weather-lisbon', ['get_weather']));
    await cli.waitForLine(/scored trace \S+ test case weather-lisbon/);
    cli.child.kill('SIGINT');
    await cli.waitForLine(/SIGINT: shutting down/);
    cli.child.kill('SIGINT');
    expect(await cli.exited).toBe(1);
    expect(cli.stderr()).toContain('spanscore: SIGINT again: exiting now\n');
    expect(cli.stderr()).not.toMatch(/deadline passed|spanscore: stopped/);
  });

  it.each([
    [
      'a --max-old-space-size of the operator’s',
      { NODE_OPTIONS: '--max-old-space-size=300' },
      /V8 heap limit \d+ MB, from --max-old-space-size \(kept instead of queue\.memoryHeapMb 192\)/,
    ],
    [
      'memoryHeapMb 0',
      { SPANSCORE_MEMORY_HEAP_MB: '0' },
      /V8 heap limit \d+ MB, Node's own \(queue\.memoryHeapMb: 0\)/,
    ],
  ])('leaves the heap unbounded by spanscore with %s', async (_name, env, line) => {
    const cli = serve(env);
    await cli.waitForLine(/listening on (\S+) \(memory driver\)/);
    expect(cli.stderr()).toMatch(line);
    expect(cli.stderr()).not.toContain('V8 heap bounded');
  });

  it('leaves the bullmq driver in one process, unbounded', async () => {
    const prefix = testPrefix();
    cleanups.push(redisFor(prefix).cleanup);
    const cli = serve({ REDIS_URL, SPANSCORE_REDIS_PREFIX: prefix });
    await cli.waitForLine(/listening on (\S+) \(bullmq driver\)/);
    expect(cli.stderr()).not.toContain('V8 heap');
    expect(childPids(cli.child.pid!)).toEqual([]);
  });
});
