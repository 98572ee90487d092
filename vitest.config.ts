import { defineConfig } from 'vitest/config';
import { ISOLATED_TEST_FILES } from './test/setup/isolated-test-files.js';

/** The fault-injection suite takes minutes (`npm run test:faults`, in CI). */
const EXCLUDE = ['test/faults/**', '**/node_modules/**'];

/**
 * Tests whose subject no Node version changes, in a project of their own that CI runs on one Node
 * only (`--project shared --project isolated` leaves it out; vitest's `--exclude` does not reach
 * inline projects): the guides followed as written (npm installs included: they test the docs),
 * the source tree's architecture rules (dependency-cruiser over the sources, file sizes, the
 * isolated-files list), and the bytes the Redis results store writes (JSON the same on every
 * Node). (The bench's instruction counter is not one: it reads V8's code map.)
 */
const ONCE = [
  'test/docs/guides-as-written.test.ts',
  'test/architecture/**/*.test.ts',
  'test/budgets/redis-stored-bytes-per-trace.test.ts',
];

/**
 * What the projects share (an inline project does not inherit the root's `test` options).
 * `expect.poll` (the browser tests' waits on the page) waits up to 10 s, as the session pages'
 * element waits do (`page.setDefaultTimeout(10_000)`), not vitest's 1 s: a session list that had not
 * rendered in 1 s, in CI's Node 24 pass beside the fault suite's outages, failed a test whose
 * assertion held.
 */
const common = {
  testTimeout: 30_000,
  // fast-check draws up to the maximum a test names (its default stops at 10 items).
  setupFiles: 'test/setup/fast-check-sizes.ts',
  pool: 'forks',
  expect: { poll: { timeout: 10_000 } },
} as const;

export default defineConfig({
  test: {
    // A temporary folder for the run, removed at its end (every test's and process's os.tmpdir());
    // dist/ built once (tests start the built CLI); and a folder for the package packed once per
    // run by the tests that install it. The root's global setup runs once for both projects, and
    // what it provides reaches both.
    globalSetup: [
      'test/setup/run-tmpdir.global.ts',
      'test/setup/build-dist.global.ts',
      'test/setup/package-dir.global.ts',
    ],
    projects: [
      {
        test: {
          ...common,
          name: 'shared',
          include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
          exclude: [...EXCLUDE, ...ISOLATED_TEST_FILES, ...ONCE],
          // The other files share their worker's module graph, one after another: importing the
          // sources again for every file was about a quarter of a run's CPU time (a full run on
          // two cores, with these three projects: 587 → 432 CPU s, 368 → 289 s).
          isolate: false,
        },
      },
      {
        test: {
          ...common,
          name: 'isolated',
          include: ISOLATED_TEST_FILES,
          exclude: [...EXCLUDE, ...ONCE],
        },
      },
      { test: { ...common, name: 'once', include: ONCE } },
    ],
    // Three files at a time even on two cores (vitest's default there is one): most tests wait on
    // timers, sockets and child processes, so they overlap well. A full run on two cores: one at
    // a time 250 s; two 397 s → three 319 s, at the same CPU time (388 + 125 s), in the same
    // session (the suite has grown since the first figure).
    maxWorkers: 3,
  },
});
