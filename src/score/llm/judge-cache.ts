import { LRUCache } from 'lru-cache';
import type { JudgeUsage } from './judge.js';

/** A validated judge answer as a cache keeps it (plain JSON). */
export interface CachedJudgeAnswer {
  output: unknown;
  model: string;
  usage: JudgeUsage;
}

/**
 * Where {@link withJudgeCache} keeps answers: in memory (this file) or in Redis with the BullMQ
 * driver (`RedisJudgeCache`), so every worker shares it. Implementations may forget entries at any
 * time; a forgotten entry only costs a judge call.
 */
export interface JudgeCache {
  get(key: string): Promise<CachedJudgeAnswer | undefined>;
  set(key: string, answer: CachedJudgeAnswer): Promise<void>;
}

/** An in-memory {@link JudgeCache} that keeps the `maxEntries` most recently used answers. */
export function createMemoryJudgeCache(maxEntries = 10_000): JudgeCache {
  const lru = new LRUCache<string, CachedJudgeAnswer>({ max: maxEntries });
  return {
    get: key => Promise.resolve(lru.get(key)),
    set: (key, answer) => {
      lru.set(key, answer);
      return Promise.resolve();
    },
  };
}
