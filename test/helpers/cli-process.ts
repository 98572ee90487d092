import { spawn, type ChildProcess } from 'node:child_process';
import { CLI_ENTRY } from './cli-entry.js';

const ROOT = new URL('../../', import.meta.url).pathname;

/** A spanscore CLI process (the built CLI, as users run it), its output, and ways to wait on it. */
export interface CliProcess {
  child: ChildProcess;
  stderr: () => string;
  stdout: () => string;
  /** Resolves with the first match of `pattern` in stderr, or rejects after `timeoutMs`. */
  waitForLine(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
}

export function startCli(args: string[], env: Record<string, string | undefined> = {}): CliProcess {
  const child = spawn(process.execPath, [CLI_ENTRY, ...args], {
    cwd: ROOT,
    env: {
      ...process.env,
      REDIS_URL: undefined,
      SPANSCORE_REDIS_URL: undefined,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  let out = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>(resolve => child.on('exit', code => resolve(code)));
  return {
    child,
    stderr: () => err,
    stdout: () => out,
    exited,
    async waitForLine(pattern, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const match = pattern.exec(err);
        if (match) return match;
        if (Date.now() > deadline || child.exitCode !== null)
          throw new Error(`no line matching ${pattern} in:\n${err}`);
        await new Promise(r => setTimeout(r, 25));
      }
    },
  };
}
