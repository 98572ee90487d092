import { defineConfig } from 'vitest/config';

/** `npm run test:faults`: the fault-injection suite, one file at a time (it stops Redis servers and kills workers). */
export default defineConfig({
  test: {
    include: ['test/faults/**/*.test.ts'],
    testTimeout: 90_000,
    hookTimeout: 30_000,
    pool: 'forks',
    fileParallelism: false,
  },
});
