import { afterEach, describe, expect, it } from 'vitest';
import { whenReady } from '../../src/redis/redis-connection.js';
import { createRedisResultsStore } from '../../src/redis/redis-results-store.js';
import { counting } from '../helpers/counting-calls.js';
import { redisFor, testPrefix } from '../helpers/redis.js';

/**
 * The Redis results store reads its per-minute hashes a command a minute of the window asked. The
 * API takes a window's end up to the year 275760: unbounded, a summary to then built an array of
 * 1.4e11 minutes and ended the process ("invalid size error"), and a month ahead sent 43,000
 * HGETALLs. Commands are counted on the store's own connection, never timed.
 */
const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

describe('Redis results store: a window that ends in the future', () => {
  it('reads no minute past a few after now, whatever the window asks', async () => {
    const prefix = testPrefix();
    const redis = redisFor(prefix);
    closers.push(() => redis.cleanup());
    await whenReady(redis.commands);
    const store = createRedisResultsStore(redis.commands, prefix, {
      maxResults: 100,
      maxRuns: 100,
      retentionMs: 3_600_000,
      storeContent: true,
      maxServices: 20,
      maxToolsPerService: 30,
    });
    closers.push(() => store.close());
    const now = Date.now();
    const month = 30 * 24 * 3_600_000;
    for (const to of [now + month, 8_640_000_000_000_000]) {
      let commands = 0;
      await counting(
        redis.commands,
        'sendCommand',
        () => commands++,
        async () => {
          const summary = await store.summary(now - 3_600_000, to);
          const tools = await store.tools(now - 3_600_000, to);
          const failures = await store.failures(now - 3_600_000, to);
          expect(summary.total.count).toBe(0);
          expect(tools.tools).toEqual([]);
          expect(failures.signatures).toEqual([]);
        },
      );
      // Three reads of the retention's hour and the few minutes ahead: at most 67 minutes each,
      // in batches or one by one.
      expect(commands).toBeLessThanOrEqual(3 * 67);
    }
  });
});
