import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { CLI_ENTRY } from '../helpers/cli-entry.js';

const ROOT = new URL('../../', import.meta.url).pathname;

describe('spanscore writing into a pipe its reader closed (`spanscore … | head -1`)', () => {
  it('stops quietly instead of crashing on EPIPE', async () => {
    const child = spawn(process.execPath, [CLI_ENTRY, 'score', '--help'], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // Close the reading end before the help text is written, as `head` does once it has a line.
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>(resolve => child.on('exit', resolve));
    expect(stderr).not.toContain('EPIPE');
    expect(stderr).not.toContain('Unhandled');
    expect(code).toBe(0);
  });
});
