import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // The fault-injection suite takes minutes (`npm run test:faults`, in CI).
    exclude: ['test/faults/**', '**/node_modules/**'],
    testTimeout: 30_000,
    pool: 'forks',
  },
});
