import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Gives the test run a temporary folder of its own, and removes it with everything in it when the
 * run ends. `TMPDIR` is set before vitest starts its workers, so `os.tmpdir()` is this folder in
 * every test file and in every process a test starts (the CLI, Redis servers' folders, Chromium's
 * profiles, the packed package, tsx's and Node's compile caches): what a test makes with
 * `mkdtemp` and leaves behind goes with the run, whether the test passed, failed or timed out.
 * (A run killed outright leaves its folder: `spanscore-test-run-*` in the system's temporary
 * folder.) Before this, a full run left about 176 folders in /tmp.
 *
 * Listed first in the configs' `globalSetup`, so the setups after it make their folders here.
 */
export default function setup(): () => Promise<void> {
  const previous = process.env.TMPDIR;
  const dir = mkdtempSync(join(tmpdir(), 'spanscore-test-run-'));
  process.env.TMPDIR = dir;
  return async () => {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    await rm(dir, { recursive: true, force: true, maxRetries: 5 });
  };
}
