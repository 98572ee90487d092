import { describe, expect, it } from 'vitest';
import { untilShutdown } from './graceful-shutdown.js';
import type { Service } from './service.js';

/** A service whose close is counted, and that fails when told to. */
function service(): { service: Service; fail: (error: Error) => void; closes: () => number } {
  let closes = 0;
  let fail: (error: Error) => void = () => {};
  const failed = new Promise<Error>(resolve => (fail = resolve));
  return {
    service: {
      url: undefined,
      uiUrl: undefined,
      metricsUrl: undefined,
      driver: 'memory',
      close: () => {
        closes++;
        return Promise.resolve();
      },
      failed,
    },
    fail: error => fail(error),
    closes: () => closes,
  };
}

describe('untilShutdown', () => {
  it('ends a service whose part failed: says why, closes what still runs, resolves 1, and stops listening for signals', async () => {
    const { service: s, fail, closes } = service();
    const lines: string[] = [];
    const before = process.listenerCount('SIGTERM');
    const code = untilShutdown(s, 1000, line => lines.push(line));
    expect(process.listenerCount('SIGTERM')).toBe(before + 1);
    fail(new Error('the scoring thread ran out of its 192 MB heap'));
    expect(await code).toBe(1);
    expect(lines).toEqual(['spanscore: the scoring thread ran out of its 192 MB heap']);
    expect(closes()).toBe(1);
    expect(process.listenerCount('SIGTERM')).toBe(before);
  });

  it('a SIGTERM shuts the service down once, resolving 0', async () => {
    const { service: s, closes } = service();
    const lines: string[] = [];
    const code = untilShutdown(s, 1000, line => lines.push(line));
    // Only the listener it added (the test runner's own are not to be woken).
    const ours = process.listeners('SIGTERM').at(-1) as (signal: NodeJS.Signals) => void;
    ours('SIGTERM');
    expect(await code).toBe(0);
    expect(closes()).toBe(1);
    expect(lines).toEqual([
      'spanscore: SIGTERM: shutting down (deadline 1000 ms)',
      'spanscore: stopped',
    ]);
  });
});
