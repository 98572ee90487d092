import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // The fault-injection suite takes over a minute (`npm run test:faults`, in CI); the long
    // tests minutes (`npm run test:long`, before a release).
    exclude: ['test/faults/**', 'test/long/**', '**/node_modules/**'],
    testTimeout: 30_000,
    pool: 'forks',
  },
});
