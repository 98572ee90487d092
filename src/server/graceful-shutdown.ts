import type { Service } from './service.js';

/**
 * Resolves when the service has shut down after SIGTERM or SIGINT: `close()` runs (stop taking
 * traffic, finish or hand back work, flush, close Redis) within `deadlineMs`. The result is the
 * exit code: 0 for a clean shutdown, 1 when the deadline cut it short. A second signal exits at once.
 * The signals are handled from the call on: call it before announcing the service ready, or a
 * signal sent right after that announcement kills the process without a shutdown. A service
 * whose part ended by itself (`Service.failed`) is closed, said, and resolves 1.
 */
export function untilShutdown(
  service: Service,
  deadlineMs: number,
  log: (line: string) => void,
): Promise<number> {
  return new Promise(resolve => {
    let stopping = false;
    const onSignal = (signal: NodeJS.Signals): void => {
      if (stopping) {
        log(`spanscore: ${signal} again: exiting now`);
        resolve(1);
        return;
      }
      stopping = true;
      log(`spanscore: ${signal}: shutting down (deadline ${deadlineMs} ms)`);
      const timer = setTimeout(() => {
        log('spanscore: shutdown deadline passed: exiting with work unfinished');
        resolve(1);
      }, deadlineMs);
      timer.unref();
      service.close().then(
        () => {
          clearTimeout(timer);
          process.off('SIGTERM', onSignal).off('SIGINT', onSignal);
          log('spanscore: stopped');
          resolve(0);
        },
        (error: unknown) => {
          clearTimeout(timer);
          log(`spanscore: shutdown failed: ${(error as Error).message}`);
          resolve(1);
        },
      );
    };
    process.on('SIGTERM', onSignal).on('SIGINT', onSignal);
    // A part that ended by itself (the scoring thread) ends the service: what still runs closes,
    // and the exit code says it failed.
    void service.failed?.then(error => {
      log(`spanscore: ${error.message}`);
      if (stopping) return;
      stopping = true;
      process.off('SIGTERM', onSignal).off('SIGINT', onSignal);
      const done = (): void => resolve(1);
      service.close().then(done, done);
    });
  });
}
