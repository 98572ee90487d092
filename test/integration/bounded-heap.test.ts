import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { useProcessFixtures } from '../helpers/process-fixtures.js';
import { childPids } from '../helpers/process-tree.js';
import { REDIS_URL, redisFor, testPrefix, waitFor } from '../helpers/redis.js';
import { sdkAgentTrace } from '../helpers/sdk-spans.js';
import { sendSpans } from '../helpers/send-spans.js';

const { run, cleanups } = useProcessFixtures();
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
    ...env,
  });
}

describe('serve with the memory driver runs the service in a bounded heap', () => {
  it('starts the service in a child with --max-old-space-size=192, which scores, and says so', async () => {
    const cli = serve();
    const url = (await cli.waitForLine(/listening on (\S+) \(memory driver\)/))[1]!;
    expect(cli.stderr()).toContain(
      'spanscore: memory driver: V8 heap bounded to 192 MB (queue.memoryHeapMb, SPANSCORE_MEMORY_HEAP_MB; raise it with the buffer and results bounds)\n',
    );
    const [child] = childPids(cli.child.pid!);
    expect(cmdline(child!)).toEqual(
      expect.arrayContaining(['--max-old-space-size=192', '--max-semi-space-size=16', 'serve']),
    );
    await sendSpans(url, sdkAgentTrace('weather-lisbon', ['get_weather']));
    await cli.waitForLine(/scored trace \S+ test case weather-lisbon/);
    // Ctrl-C of a terminal reaches the parent: forwarded once, the child shuts down cleanly.
    cli.child.kill('SIGINT');
    expect(await cli.exited).toBe(0);
    expect(cli.stderr().match(/SIGINT: shutting down/g)).toHaveLength(1);
    expect(cli.stderr()).toMatch(/spanscore: stopped\n$/);
    expect(alive(child!)).toBe(false);
  });

  it('a child whose parent is killed shuts down by itself and frees its port', async () => {
    const cli = serve({ SPANSCORE_MEMORY_HEAP_MB: '160' });
    const url = (await cli.waitForLine(/listening on (\S+) \(memory driver\)/))[1]!;
    expect(cli.stderr()).toContain('V8 heap bounded to 160 MB');
    const [child] = childPids(cli.child.pid!);
    cli.child.kill('SIGKILL');
    await cli.exited;
    await waitFor(() => Promise.resolve(!alive(child!)), 'the orphaned service exits', 15_000);
    await expect(fetch(`${new URL(url).origin}/healthz`)).rejects.toThrow();
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
  ])('keeps one process with %s', async (_name, env, line) => {
    const cli = serve(env);
    await cli.waitForLine(/listening on (\S+) \(memory driver\)/);
    expect(cli.stderr()).toMatch(line);
    expect(childPids(cli.child.pid!)).toEqual([]);
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
