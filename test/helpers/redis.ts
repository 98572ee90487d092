import { randomUUID } from 'node:crypto';
import type { RedisClient } from '../../src/redis/redis-connection.js';
import { createRedisConnection } from '../../src/redis/redis-connection.js';

/** The Redis the tests use: `REDIS_URL`, else the local one. `.ci/run` makes sure it runs. */
export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A key prefix no other test (or anything else on this Redis) uses. */
export function testPrefix(): string {
  return `spanscore-test-${randomUUID().slice(0, 8)}`;
}

/** Connections for one test, and a cleanup that closes them and deletes every key under `prefix`. */
export function redisFor(prefix: string): {
  prefix: string;
  commands: RedisClient;
  bullmq: () => RedisClient;
  cleanup: () => Promise<void>;
} {
  const opened: RedisClient[] = [];
  const open = (role: 'bullmq' | 'commands'): RedisClient => {
    const r = createRedisConnection(REDIS_URL, role);
    opened.push(r);
    return r;
  };
  const commands = open('commands');
  return {
    prefix,
    commands,
    bullmq: () => open('bullmq'),
    async cleanup() {
      let cursor = '0';
      do {
        const [next, keys] = await commands.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
        if (keys.length) await commands.del(...keys);
        cursor = next;
      } while (cursor !== '0');
      await Promise.all(opened.map(r => r.quit().catch(() => r.disconnect())));
    },
  };
}

/** Polls `condition` until it holds or `timeoutMs` passes; then fails with `what`. */
export async function waitFor(
  condition: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise(r => setTimeout(r, 20));
  }
}
