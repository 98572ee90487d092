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
    // Two files at a time even on two cores (vitest's default there is one): most tests wait on
    // timers, sockets and child processes, so two overlap well (a full run: 250 s → 137 s here).
    maxWorkers: 2,
  },
});
