import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';

/** A private `redis-server` that a test may stop and start again, keeping its data on disk. */
export interface RedisServer {
  url: string;
  /** Saves to disk and stops (`SHUTDOWN SAVE`): clients see connection refused. */
  stop(): Promise<void>;
  /** Starts it again on the same port, loading what it saved (no-op while it runs). */
  start(): Promise<void>;
  /** Runs one command through `redis-cli` (e.g. `CLIENT PAUSE 8000 WRITE`) and returns its output. */
  cli(...args: string[]): string;
}

/** Starts `redis-server` from PATH on a free loopback port with its data in a new temp folder. */
export async function startRedisServer(): Promise<RedisServer> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'spanscore-redis-'));
  let child: ChildProcess | undefined;
  const url = `redis://127.0.0.1:${port}`;
  const start = async (): Promise<void> => {
    if (child && child.exitCode === null) return;
    child = spawn('redis-server', loopbackServerArgs(port, dir), { stdio: 'ignore' });
    const probe = new Redis(url, {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    // Refused connects while the server starts are expected: the loop retries them. Without a
    // listener ioredis logs each as an unhandled error event.
    probe.on('error', () => {});
    for (let i = 0; ; i++) {
      try {
        await probe.connect();
        if ((await probe.ping()) === 'PONG') break;
      } catch {
        if (i > 100) throw new Error(`redis-server on port ${port} did not start`);
        await new Promise(r => setTimeout(r, 50));
      }
    }
    probe.disconnect();
  };
  const stop = async (): Promise<void> => {
    if (!child || child.exitCode !== null) return;
    const exited = new Promise(resolve => child!.once('exit', resolve));
    spawnSync('redis-cli', ['-p', String(port), 'shutdown', 'save']);
    await exited;
  };
  await start();
  const cli = (...args: string[]): string =>
    spawnSync('redis-cli', ['-p', String(port), ...args], { encoding: 'utf8' }).stdout.trim();
  return { url, stop, start, cli };
}

/** `redis-server` arguments for a private server: loopback only, its data in `dir`, no persistence. */
export function loopbackServerArgs(port: number, dir: string): string[] {
  return [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--dir',
    dir,
    '--save',
    '',
    '--appendonly',
    'no',
  ];
}

/**
 * A TCP port free on loopback right now: any (0), or `wanted`, which rejects (EADDRINUSE) when it
 * is taken.
 */
export function freePort(wanted = 0): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(wanted, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
