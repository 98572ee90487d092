import { mkdirSync, mkdtempSync, symlinkSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The start of a test run's folder's name. */
export const RUN_TMPDIR_PREFIX = 'spanscore-test-run-';

/**
 * Gives the test run a temporary folder of its own, and removes it with everything in it when the
 * run ends. `TMPDIR` is set before vitest starts its workers, so `os.tmpdir()` is this folder in
 * every test file and in every process a test starts (the CLI, Redis servers' folders, Chromium's
 * profiles, the packed package): what a test makes with `mkdtemp` and leaves behind goes with the
 * run, whether the test passed, failed or timed out. (A run killed outright leaves its folder:
 * `spanscore-test-run-*` in the system's temporary folder.) Before this, a full run left about
 * 176 folders in /tmp.
 *
 * Compilers' caches outlive the run, where they were before: tsx's (`tsx-<uid>`), jiti's (`jiti`:
 * it compiles a suite's TypeScript scorers, and with them the sources they import) and Node's
 * (`node-compile-cache`) are links to the system's temporary folder. Cold, jiti's alone cost a
 * test about 9 s of CPU each time it loaded such a suite before another had filled it.
 *
 * Listed first in the configs' `globalSetup`, so the setups after it make their folders here.
 */
export default function setup(): () => Promise<void> {
  const previous = process.env.TMPDIR;
  const system = tmpdir();
  const dir = mkdtempSync(join(system, RUN_TMPDIR_PREFIX));
  const uid = process.geteuid?.() ?? 0;
  for (const cache of [`tsx-${uid}`, 'jiti', 'node-compile-cache']) {
    mkdirSync(join(system, cache), { recursive: true });
    symlinkSync(join(system, cache), join(dir, cache));
  }
  process.env.TMPDIR = dir;
  return async () => {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    // A link is removed, not followed: the caches stay.
    await rm(dir, { recursive: true, force: true, maxRetries: 5 });
  };
}
