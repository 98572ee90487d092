import type { RedisClient } from './redis-connection.js';
import type { CachedJudgeAnswer, JudgeCache } from '../score/llm/judge-cache.js';

/**
 * A {@link JudgeCache} in Redis, shared by every worker: one string key per answer,
 * `<prefix>:judge-cache:<key>`, JSON, expiring after `ttlSeconds`. An entry that is not valid JSON
 * counts as a miss.
 */
export function createRedisJudgeCache(
  redis: RedisClient,
  prefix: string,
  ttlSeconds: number,
): JudgeCache {
  const keyOf = (key: string) => `${prefix}:judge-cache:${key}`;
  return {
    async get(key) {
      const text = await redis.get(keyOf(key));
      if (text === null) return undefined;
      try {
        return JSON.parse(text) as CachedJudgeAnswer;
      } catch {
        return undefined;
      }
    },
    async set(key, answer) {
      await redis.set(keyOf(key), JSON.stringify(answer), 'EX', ttlSeconds);
    },
  };
}
