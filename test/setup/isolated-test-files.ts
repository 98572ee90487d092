/**
 * Test files that change or depend on process-wide state a file sharing its worker would see: the
 * global OpenTelemetry API (tracer and logger providers, the context manager; `captureTrace`,
 * `@trace`), vitest's `expect.extend` (the matchers), environment variables a file sets, and the
 * fake clock's count of timers (`vi.getTimerCount`, which counts those of earlier files' leftover
 * work too).
 * vitest.config.ts runs them isolated, each in a fresh module graph; every other file shares its
 * worker's. `test/architecture/isolated-tests.test.ts` fails on a file that sets such state and is
 * not listed.
 */
export const ISOLATED_TEST_FILES = [
  'src/capture/**/*.test.ts',
  'src/vitest/**/*.test.ts',
  'test/package/public-surface.test.ts',
  'test/package/vitest-entry.test.ts',
  'test/integration/vercel-ai-sdk-live.test.ts',
  'test/cli/jobs-command.test.ts',
  'test/cli/score-command.test.ts',
  'test/integration/llm-judge.test.ts',
  'test/docs/sessions-as-printed.test.ts',
  'src/queue/waiting-requests.test.ts',
];
