import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';

const THREAD = new URL('../../dist/cli/bounded-heap-thread.js', import.meta.url);

/** The service's thread as `runWithBoundedHeap` starts it, its stderr captured. */
function startThread(argv: string[]): { thread: Worker; stderr: () => string } {
  const thread = new Worker(THREAD, {
    workerData: { argv },
    env: { ...process.env, SPANSCORE_EXPORT: 'false', SPANSCORE_HEAP_BOUNDED_MB: '192' },
    stderr: true,
  });
  let text = '';
  thread.stderr.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
  return { thread, stderr: () => text };
}

describe("the bounded service's thread", () => {
  it('ends at once with 143 on a SIGTERM that comes before the service listens for it, as a process would', async () => {
    const { thread, stderr } = startThread(['serve', '--port', '0', '--host', '127.0.0.1']);
    // Sent as soon as the thread runs: `serve` is still loading its modules, so no handler of the
    // service's is there yet. (Ignored, it left a service running that its operator had stopped.)
    thread.once('online', () => thread.postMessage({ signal: 'SIGTERM' }));
    const [code] = (await once(thread, 'exit')) as [number];
    expect(code).toBe(143);
    expect(stderr()).toContain('spanscore: SIGTERM while the service was not running: stopped\n');
    expect(stderr()).not.toContain('listening on');
  });

  it('passes a SIGINT to the service once it listens: a clean shutdown, exit 0', async () => {
    const { thread, stderr } = startThread(['serve', '--port', '0', '--host', '127.0.0.1']);
    await expect.poll(stderr).toMatch(/results page at/);
    thread.postMessage({ signal: 'SIGINT' });
    const [code] = (await once(thread, 'exit')) as [number];
    expect(code).toBe(0);
    expect(stderr()).toMatch(/SIGINT: shutting down[\s\S]*spanscore: stopped\n/);
  });
});
