/**
 * A BullMQ connection to a Redis Cluster waits out a failover, as one to a single Redis waits out
 * a restart (`maxRetriesPerRequest: null`). ioredis's own default gives a cluster command 16 tries
 * (each retry after a closed connection, a CLUSTERDOWN or a MOVED uses one; 200 ms apart here),
 * so a failover longer than about 3 s failed BullMQ's commands with "Too many Cluster
 * redirections", and a worker that met it at the wrong moment stopped taking a queue shard's jobs.
 */
import { describe, expect, it } from 'vitest';
import { createRedisConnection, whenReady } from '../../src/redis/redis-connection.js';
import { CLUSTER_START_TIMEOUT_MS, startRedisCluster } from '../helpers/redis-cluster.js';

/** Slot 3300: on the master that serves slots 0–5460. */
const KEY = '{b}failover';
/** Longer than ioredis's default budget of 16 tries at the connection's 200 ms. */
const FAILOVER_TAKES_MS = 5000;

describe('a bullmq-role connection to a Redis Cluster', () => {
  it(
    'waits out a failover longer than 16 tries: a command sent to the dead master runs on its promoted replica',
    async () => {
      const cluster = await startRedisCluster({ masters: 3, replicasPerMaster: 1 });
      const redis = createRedisConnection({ clusterNodes: cluster.nodes }, 'bullmq');
      redis.on('error', () => undefined);
      try {
        await whenReady(redis, 10_000);
        expect(await redis.set(KEY, 'before')).toBe('OK');
        const victim = cluster.topology().find(n => n.role === 'master' && n.slots[0]?.[0] === 0)!;
        const replica = cluster
          .topology()
          .find(
            n =>
              n.role === 'replica' &&
              cluster.cli(n.port, 'info', 'replication').includes(`master_port:${victim.port}`),
          )!;
        // The failover happens when the test says, not when the replica decides.
        cluster.cli(replica.port, 'config', 'set', 'cluster-replica-no-failover', 'yes');

        cluster.kill(victim.port);
        let settled: 'pending' | 'fulfilled' | 'rejected' = 'pending';
        const write = redis.set(KEY, 'during').then(
          reply => ((settled = 'fulfilled'), reply),
          (error: unknown) => ((settled = 'rejected'), error),
        );
        await new Promise(r => setTimeout(r, FAILOVER_TAKES_MS));
        expect(settled).toBe('pending');

        cluster.cli(replica.port, 'cluster', 'failover', 'takeover');
        expect(await write).toBe('OK');
        expect(cluster.cli(replica.port, 'get', KEY)).toBe('during');
      } finally {
        redis.disconnect();
        await cluster.stop();
      }
    },
    CLUSTER_START_TIMEOUT_MS,
  );
});
