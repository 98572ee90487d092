import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeToFd } from './write-to-fd.js';

describe('writeToFd', () => {
  it('writes the whole text, multi-byte characters and all, in order', () => {
    const dir = mkdtempSync(join(tmpdir(), 'spanscore-write-fd-'));
    try {
      const file = join(dir, 'out.txt');
      const fd = openSync(file, 'w');
      const big = 'é'.repeat(200_000); // 400,000 bytes: more than one write may take
      writeToFd(fd, 'first\n');
      writeToFd(fd, big);
      writeToFd(fd, '\nlast 🚀\n');
      closeSync(fd);
      expect(readFileSync(file, 'utf8')).toBe(`first\n${big}\nlast 🚀\n`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('blocks while the reader is behind, and every byte arrives once it reads (a pipe of 64 KiB, 1 MB written)', async () => {
    // A child that writes 1 MB to its stderr through writeToFd, to a reader that starts late.
    const script = `
      import { writeToFd } from ${JSON.stringify(new URL('./write-to-fd.ts', import.meta.url).pathname)};
      const line = 'x'.repeat(999) + '\\n';
      for (let i = 0; i < 1000; i++) writeToFd(2, line);
      writeToFd(1, 'done\\n');
    `;
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', script],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.pause();
    await new Promise(resolve => setTimeout(resolve, 1500));
    // Still blocked on the full pipe: it has not finished.
    expect(stdout).toBe('');
    let bytes = 0;
    child.stderr.on('data', (c: Buffer) => (bytes += c.length)).resume();
    const code = await new Promise(resolve => child.once('exit', resolve));
    expect(code).toBe(0);
    expect(stdout).toBe('done\n');
    expect(bytes).toBe(1_000_000);
  });
});
