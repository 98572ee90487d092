import { tmpdir } from 'node:os';
import { basename, dirname } from 'node:path';
import { RUN_TMPDIR_PREFIX } from '../setup/run-tmpdir.global.js';

/**
 * The environment a budget figure runs in from a test, as `npm run bench` runs it: the system's
 * temporary folder, not the test run's (test/setup/run-tmpdir.global.ts). The workload's suite is
 * written there and, unnamed, is named by its path, which every result carries: the run's longer
 * folder added about 110 bytes a trace to the stored figures.
 */
export function figureEnv(): NodeJS.ProcessEnv {
  const dir = tmpdir();
  return basename(dir).startsWith(RUN_TMPDIR_PREFIX)
    ? { ...process.env, TMPDIR: dirname(dir) }
    : process.env;
}
