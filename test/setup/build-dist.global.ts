import { execFile } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const ROOT = new URL('../../', import.meta.url).pathname;
/**
 * tsc's record of the last build, outside `dist/` (which is packed) and outside git (`.tmp` is
 * ignored), and in the checkout, not in `node_modules`: git worktrees sharing one `node_modules`
 * each have their own `dist/`, and one record for all made every run in another worktree build
 * the whole of it again (about 30 s).
 */
const BUILD_INFO = join(ROOT, '.tmp/dist.tsbuildinfo');

/**
 * Builds `dist/` once before the run (incrementally: about a second when nothing changed), so that
 * tests start the CLI as users run it, `node dist/cli/bin.js` (see test/helpers/cli-entry.ts),
 * instead of compiling the sources in every process they start: a CLI process through tsx costs
 * twice the CPU time, and the test run starts over a hundred. Nothing writes `dist/` during the
 * run afterwards (the packed package is packed from this build).
 */
export default async function setup(): Promise<void> {
  // tsc trusts its build info: with `dist/` gone it would emit nothing.
  if (!existsSync(join(ROOT, 'dist/cli/bin.js'))) rmSync(BUILD_INFO, { force: true });
  await promisify(execFile)(
    process.execPath,
    [
      join(ROOT, 'node_modules/typescript/bin/tsc'),
      '-p',
      'tsconfig.build.json',
      '--incremental',
      '--tsBuildInfoFile',
      BUILD_INFO,
    ],
    { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 },
  );
}
