import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/redis.js';

const THREAD = new URL('../../dist/cli/bounded-heap-thread.js', import.meta.url).href;

/**
 * A process that runs `serve` in the bounded service's thread as `runWithBoundedHeap` starts it,
 * and passes it the signals the test writes on its stdin (one name a line); `ONLINE` at once when
 * the thread comes online. The thread writes to the process's stderr itself.
 */
function startThread(signalWhenOnline?: 'SIGTERM') {
  const script = `
    import { Worker } from 'node:worker_threads';
    import { createInterface } from 'node:readline';
    const thread = new Worker(new URL(${JSON.stringify(THREAD)}), {
      workerData: { argv: ['serve', '--port', '0', '--host', '127.0.0.1'] },
      execArgv: [], // not this script's --input-type
      env: { ...process.env, SPANSCORE_EXPORT: 'false', SPANSCORE_HEAP_BOUNDED_MB: '192' },
    });
    ${signalWhenOnline ? `thread.once('online', () => thread.postMessage({ signal: '${signalWhenOnline}' }));` : ''}
    const lines = createInterface({ input: process.stdin });
    lines.on('line', signal => thread.postMessage({ signal }));
    thread.once('exit', code => { lines.close(); process.stdin.destroy(); process.exitCode = code; });
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    stdio: ['pipe', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const exited = new Promise<number | null>(resolve => child.once('exit', code => resolve(code)));
  return { child, stderr: () => stderr, exited };
}

describe("the bounded service's thread", () => {
  it('never loses a SIGTERM sent as the thread starts: it ends with 143 before the service listens, or the service shuts down once it does', async () => {
    // Sent as soon as the thread runs. Node 20 hands it over while `serve` still loads its
    // modules, before any handler of the service's: the thread ends as a process would (143).
    // Node 24 hands it over later, to the service's handler: a clean shutdown (0). Either way the
    // service does not keep running (ignored, it left one running that its operator had stopped).
    const { stderr, exited } = startThread('SIGTERM');
    const code = await exited;
    if (code === 143) {
      expect(stderr()).toContain('spanscore: SIGTERM while the service was not running: stopped\n');
      expect(stderr()).not.toContain('listening on');
    } else {
      expect(code, stderr()).toBe(0);
      expect(stderr()).toMatch(/SIGTERM: shutting down[\s\S]*spanscore: stopped\n$/);
    }
  });

  it('passes a SIGINT to the service once it listens (exit 0), and lets a signal after its shutdown be', async () => {
    const { child, stderr, exited } = startThread();
    await waitFor(() => Promise.resolve(/results page at/.test(stderr())), 'the service listens');
    child.stdin.write('SIGINT\n');
    await waitFor(() => Promise.resolve(/spanscore: stopped\n/.test(stderr())), 'stopped');
    // A supervisor's second signal, after the shutdown it asked for: not an exit by signal.
    child.stdin.write('SIGTERM\n');
    expect(await exited).toBe(0);
    expect(stderr()).toMatch(/SIGINT: shutting down[\s\S]*spanscore: stopped\n$/);
    expect(stderr()).not.toContain('while the service was not running');
  });
});
