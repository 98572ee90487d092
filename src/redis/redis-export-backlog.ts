import type { RedisClient } from './redis-connection.js';
import type { ExportBacklog } from '../emit/export-backlog.js';

/** Entries older than this are dropped when read: a trace is never retried that long. */
const MAX_AGE_MS = 7 * 24 * 3_600_000;
/** How long a process trusts its last look at whether anything is failing. */
const CHECK_MS = 1000;

/**
 * The BullMQ driver's export backlog: a sorted set `<prefix>:exports:{b}:failing` of trace ids
 * scored by their first failure (`ZADD NX`), shared by every worker. A successful export removes
 * its trace only while something is failing: each process looks (`ZCARD`) at most once a second
 * and at once after a failure of its own, so a healthy pipeline pays no command per trace.
 */
export function createRedisExportBacklog(
  redis: RedisClient,
  prefix: string,
  now: () => number = Date.now,
): ExportBacklog {
  const key = `${prefix}:exports:{b}:failing`;
  let anyFailing = false;
  let checkedAt = 0;
  const mayBeFailing = async (): Promise<boolean> => {
    if (now() - checkedAt > CHECK_MS) {
      checkedAt = now();
      anyFailing = (await redis.zcard(key)) > 0;
    }
    return anyFailing;
  };
  return {
    async failed(traceId) {
      anyFailing = true;
      checkedAt = now();
      await redis.zadd(key, 'NX', now(), traceId);
    },
    async settled(traceId) {
      if (await mayBeFailing()) await redis.zrem(key, traceId);
    },
    async stats() {
      await redis.zremrangebyscore(key, '-inf', now() - MAX_AGE_MS);
      const [waiting, oldest] = await Promise.all([
        redis.zcard(key),
        redis.zrange(key, 0, 0, 'WITHSCORES'),
      ]);
      return {
        waiting,
        oldestAgeSeconds: oldest[1] === undefined ? 0 : (now() - Number(oldest[1])) / 1000,
      };
    },
  };
}
