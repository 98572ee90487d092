import { afterEach } from 'vitest';
import { startCli, type CliProcess } from './cli-process.js';
import { startOtlpBackend, type OtlpBackend } from './otlp-backend.js';
import { REDIS_URL } from './redis.js';

/**
 * For test files that start processes and servers: a cleanup list emptied after each test (last
 * registered first), a CLI starter whose processes are killed by then, and an OTLP backend that
 * is closed by then. Call once at the top of a test file.
 */
export function useProcessFixtures(): {
  cleanups: Array<() => Promise<unknown>>;
  run: (args: string[], env?: Record<string, string | undefined>) => CliProcess;
  backend: (delayMs?: number) => Promise<OtlpBackend>;
} {
  const cleanups: Array<() => Promise<unknown>> = [];
  afterEach(async () => {
    while (cleanups.length) await cleanups.pop()!();
  });
  return {
    cleanups,
    run: (args, env = {}) => {
      const cli = startCli(args, env);
      cleanups.push(async () => {
        if (cli.child.exitCode === null) cli.child.kill('SIGKILL');
        await cli.exited;
      });
      return cli;
    },
    backend: async (delayMs = 0) => {
      const backend = await startOtlpBackend(delayMs);
      cleanups.push(() => backend.close());
      return backend;
    },
  };
}

/** The environment of a bullmq-driver CLI process on the test Redis, exporting to `otlpUrl`. */
export function bullmqCliEnv(
  prefix: string,
  otlpUrl: string,
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    REDIS_URL,
    SPANSCORE_REDIS_PREFIX: prefix,
    SPANSCORE_SETTLE_MS: '100',
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: otlpUrl,
    ...extra,
  };
}
