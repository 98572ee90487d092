import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // The fault-injection suite takes minutes (`npm run test:faults`, in CI).
    exclude: ['test/faults/**', '**/node_modules/**'],
    testTimeout: 30_000,
    // dist/ built once (tests start the built CLI), and a folder for the package packed once per
    // run by the tests that install it.
    globalSetup: ['test/setup/build-dist.global.ts', 'test/setup/package-dir.global.ts'],
    pool: 'forks',
    // Three files at a time even on two cores (vitest's default there is one): most tests wait on
    // timers, sockets and child processes, so they overlap well. A full run on two cores: one at
    // a time 250 s; two 397 s → three 319 s, at the same CPU time (388 + 125 s), in the same
    // session (the suite has grown since the first figure).
    maxWorkers: 3,
  },
});
