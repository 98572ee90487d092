import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { basename, dirname } from 'node:path';
import { describe, expect, it } from 'vitest';

// test/setup/run-tmpdir.global.ts: the run's temporary folder, which its end removes.
describe("the test run's temporary folder", () => {
  it('is what os.tmpdir() gives in a test file and in a process a test starts', () => {
    const dir = tmpdir();
    expect(basename(dir)).toMatch(/^spanscore-test-run-/);
    const child = execFileSync(
      process.execPath,
      ['-e', 'process.stdout.write(require("os").tmpdir())'],
      {
        encoding: 'utf8',
      },
    );
    expect(child).toBe(dir);
    // One level under the system's temporary folder, not a run's folder inside another's.
    expect(basename(dirname(dir))).not.toMatch(/^spanscore-test-run-/);
  });
});
