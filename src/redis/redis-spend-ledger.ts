import type { RedisClient } from './redis-connection.js';
import type { SpendLedger } from '../score/llm/spend-ledger.js';

const KEEP_SECONDS = 3 * 24 * 3600;

/**
 * A {@link SpendLedger} in Redis, so a daily judge budget holds across every worker: one float per
 * UTC day, `<prefix>:judge-spend:<YYYY-MM-DD>`, added to atomically (`INCRBYFLOAT`) and kept three
 * days.
 */
export function createRedisSpendLedger(redis: RedisClient, prefix: string): SpendLedger {
  const keyOf = (day: string) => `${prefix}:judge-spend:${day}`;
  return {
    async spent(day) {
      return Number((await redis.get(keyOf(day))) ?? 0);
    },
    async add(day, usd) {
      const replies = await redis
        .multi()
        .incrbyfloat(keyOf(day), usd)
        .expire(keyOf(day), KEEP_SECONDS)
        .exec();
      const [error, total] = replies?.[0] ?? [null, 0];
      if (error) throw error;
      return Number(total);
    },
  };
}
