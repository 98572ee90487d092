import type { Cluster } from 'ioredis';
import type { RedisClient } from './redis-connection.js';

/** How full Redis is: the fullest node's `used_memory` over its `maxmemory`. */
export interface RedisMemory {
  /** 0 to 1 (or above); 0 when no node sets `maxmemory`. */
  ratio: number;
  usedBytes: number;
  maxBytes: number;
}

/**
 * Reads `INFO memory` of the server, or of every master of a Redis Cluster, and returns the
 * fullest node. A node without `maxmemory` (0: no limit) counts as empty: nothing to protect.
 */
export async function readRedisMemory(redis: RedisClient): Promise<RedisMemory> {
  const nodes = redis.isCluster ? (redis as Cluster).nodes('master') : [redis];
  const infos = await Promise.all(nodes.map(node => node.info('memory')));
  let fullest: RedisMemory = { ratio: 0, usedBytes: 0, maxBytes: 0 };
  for (const info of infos) {
    const used = Number(/^used_memory:(\d+)/m.exec(info)?.[1] ?? 0);
    const max = Number(/^maxmemory:(\d+)/m.exec(info)?.[1] ?? 0);
    const ratio = max > 0 ? used / max : 0;
    if (ratio > fullest.ratio) fullest = { ratio, usedBytes: used, maxBytes: max };
  }
  return fullest;
}
