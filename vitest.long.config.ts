import { defineConfig } from 'vitest/config';

/**
 * `npm run test:long`: tests that take minutes by design (a 150 s outage of the trace backend).
 * Not in `npm test` or `.ci/run`, which keep to the CI time budget; run before a release.
 */
export default defineConfig({
  test: {
    include: ['test/long/**/*.test.ts'],
    testTimeout: 400_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
