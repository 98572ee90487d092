import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import {
  createRedisConnection,
  redisTargetOf,
  whenReady,
} from '../../src/redis/redis-connection.js';
import { CLUSTER_START_TIMEOUT_MS, startRedisCluster } from '../helpers/redis-cluster.js';

describe('a password-protected Redis Cluster', () => {
  it(
    'is reached with REDIS_PASSWORD on every node, and refused (NOAUTH) without it',
    async () => {
      const cluster = await startRedisCluster({ masters: 3, password: 'cluster-pw-1' });
      try {
        const config = await loadConfig({
          env: { REDIS_CLUSTER_NODES: cluster.nodes.join(','), REDIS_PASSWORD: 'cluster-pw-1' },
        });
        const ok = createRedisConnection(redisTargetOf(config.queue), 'commands');
        try {
          await whenReady(ok, 5000);
          // Slots 15495, 3300 and 7365: one key on each master, so every node took the password.
          for (const key of ['{a}k', '{b}k', '{c}k']) expect(await ok.set(key, 'v')).toBe('OK');
          const holders = cluster
            .topology()
            .filter(n => n.role === 'master' && Number(cluster.cli(n.port, 'dbsize')) === 1);
          expect(holders).toHaveLength(3);
        } finally {
          ok.disconnect();
        }

        // Without it, the error says why (ioredis's own says only "Failed to refresh slots cache.").
        const refused = createRedisConnection({ clusterNodes: cluster.nodes }, 'commands');
        refused.on('error', () => undefined);
        try {
          await expect(whenReady(refused, 3000)).rejects.toThrow(
            /not ready after 3000 ms .*last error: Failed to refresh slots cache\. \(NOAUTH Authentication required/,
          );
        } finally {
          refused.disconnect();
        }
      } finally {
        await cluster.stop();
      }
    },
    CLUSTER_START_TIMEOUT_MS,
  );
});
