import { defineConfig } from 'vitest/config';

/**
 * `npm run test:faults`: the fault-injection suite. It stops and starts private Redis servers and
 * clusters and kills workers, each file its own, so two files run at once: the 150 s export
 * outage (`export-outage.test.ts`), which mostly waits, beside the others.
 */
export default defineConfig({
  test: {
    include: ['test/faults/**/*.test.ts'],
    // The fault suite starts the built CLI, as users run it.
    globalSetup: ['test/setup/run-tmpdir.global.ts', 'test/setup/build-dist.global.ts'],
    testTimeout: 90_000,
    hookTimeout: 30_000,
    pool: 'forks',
    maxWorkers: 2,
  },
});
