import { execFileSync } from 'node:child_process';
import { lstatSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RUN_TMPDIR_PREFIX } from './run-tmpdir.global.js';

// test/setup/run-tmpdir.global.ts: the run's temporary folder, which its end removes.
describe("the test run's temporary folder", () => {
  it('is what os.tmpdir() gives in a test file and in a process a test starts', () => {
    const dir = tmpdir();
    expect(basename(dir).startsWith(RUN_TMPDIR_PREFIX)).toBe(true);
    const child = execFileSync(
      process.execPath,
      ['-e', 'process.stdout.write(require("os").tmpdir())'],
      {
        encoding: 'utf8',
      },
    );
    expect(child).toBe(dir);
    // One level under the system's temporary folder, not a run's folder inside another's.
    expect(basename(dirname(dir)).startsWith(RUN_TMPDIR_PREFIX)).toBe(false);
  });

  it("keeps the compilers' caches where they were, outside the run's folder", () => {
    const dir = tmpdir();
    for (const cache of [`tsx-${process.geteuid?.() ?? 0}`, 'jiti', 'node-compile-cache']) {
      expect(lstatSync(join(dir, cache)).isSymbolicLink(), cache).toBe(true);
      expect(realpathSync(join(dir, cache))).toBe(realpathSync(join(dirname(dir), cache)));
    }
  });
});
