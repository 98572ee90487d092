/**
 * A BullMQ connection to a Redis Cluster waits out a failover, as one to a single Redis waits out
 * a restart (`maxRetriesPerRequest: null`). ioredis's own default gives a cluster command 16 tries
 * (each retry after a closed connection, a CLUSTERDOWN or a MOVED uses one; 200 ms apart here),
 * so a failover longer than about 3 s failed BullMQ's commands with "Too many Cluster
 * redirections", and a worker that met it at the wrong moment stopped taking a queue shard's jobs.
 * The receiver's queue (`producer`) keeps the 16 tries: its request is answered 503, not held.
 */
import { describe, expect, it } from 'vitest';
import { createRedisConnection, whenReady } from '../../src/redis/redis-connection.js';
import { CLUSTER_START_TIMEOUT_MS, startRedisCluster } from '../helpers/redis-cluster.js';

/** Slot 3300: on the master that serves slots 0–5460. */
const KEY = '{b}failover';
/** Longer than ioredis's default budget of 16 tries at the connection's 200 ms. */
const FAILOVER_TAKES_MS = 5000;

describe('a Redis Cluster failover longer than 16 tries', () => {
  it(
    'a bullmq connection waits it out (its command runs on the promoted replica); a producer connection gives up',
    async () => {
      const cluster = await startRedisCluster({ masters: 3, replicasPerMaster: 1 });
      const redis = createRedisConnection({ clusterNodes: cluster.nodes }, 'bullmq');
      const producer = createRedisConnection({ clusterNodes: cluster.nodes }, 'producer');
      for (const c of [redis, producer]) c.on('error', () => undefined);
      try {
        await Promise.all([whenReady(redis, 10_000), whenReady(producer, 10_000)]);
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
        const produced = producer.set(`${KEY}:producer`, 'during').catch((e: Error) => e.message);
        await new Promise(r => setTimeout(r, FAILOVER_TAKES_MS));
        expect(settled).toBe('pending');
        expect(await produced).toMatch(/^Too many Cluster redirections/);

        cluster.cli(replica.port, 'cluster', 'failover', 'takeover');
        expect(await write).toBe('OK');
        expect(cluster.cli(replica.port, 'get', KEY)).toBe('during');
      } finally {
        redis.disconnect();
        producer.disconnect();
        await cluster.stop();
      }
    },
    CLUSTER_START_TIMEOUT_MS,
  );
});
