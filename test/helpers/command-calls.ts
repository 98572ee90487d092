import type { Redis } from 'ioredis';

/**
 * Calls of each command on the server since it started (`INFO commandstats`), the commands Lua
 * scripts run included. A test counting commands reads it before and after on a server of its
 * own (`startRedisServer`), so that no other test's commands are counted.
 */
export async function commandCalls(redis: Redis): Promise<Map<string, number>> {
  const calls = new Map<string, number>();
  for (const m of (await redis.info('commandstats')).matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm))
    calls.set(m[1]!, Number(m[2]));
  return calls;
}
