import { Queue } from 'bullmq';
import { generateMulti } from 'cluster-key-slot';
import { Cluster } from 'ioredis';
import { shardOfTrace, traceQueueShards } from '../../src/queue/queue-shards.js';
import { bufferKeyOf } from '../../src/redis/redis-span-buffer.js';
import type { RedisCluster } from './redis-cluster.js';

/** BullMQ states a trace job can be found in; completed jobs are removed (`removeOnComplete`). */
const STATES = ['wait', 'delayed', 'active', 'prioritized', 'failed'] as const;

/** The traces a test sent, in order, and the index after which it killed a master. */
export interface SentTraces {
  traceIds: readonly string[];
  killedAfter: number;
  shards: number;
}

/**
 * Why traces never got their evaluation spans, in a few lines for a failed assertion's message
 * (CI keeps little of a test's output): for each queue shard, its traces missing (sent before or
 * after the kill), its BullMQ job counts, marker and active jobs still locked (held by a live
 * worker), the missing traces' jobs by state (`none`: no job holds them; completed jobs are
 * removed) and their buffer hashes (span count, root, scored, the claiming job's state); the
 * missing traces by the master of their buffer's slot; for each live master, the clients blocked
 * in a BZPOPMIN (a BullMQ worker waiting on a shard's marker). Never throws: a part that fails
 * says so, and what is read after 20 s is left out.
 */
export async function diagnoseMissingTraces(
  cluster: RedisCluster,
  prefix: string,
  sent: SentTraces,
  missingTraceIds: ReadonlySet<string>,
): Promise<string> {
  // Redis reads that hang (a cluster still failing over) must not cost the test its report.
  const lines: string[] = [];
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<string>(resolve => {
    timer = setTimeout(
      () => resolve(`${lines.join('\n')}\n(diagnosis cut short after 20 s)`),
      20_000,
    );
  });
  try {
    const read = diagnose(cluster, prefix, sent, missingTraceIds, lines).catch(
      (error: unknown) => `${lines.join('\n')}\n(diagnosis failed: ${(error as Error).message})`,
    );
    return await Promise.race([read, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

/** The reads of {@link diagnoseMissingTraces}: each part is pushed to `lines` once read. */
async function diagnose(
  cluster: RedisCluster,
  prefix: string,
  sent: SentTraces,
  missingTraceIds: ReadonlySet<string>,
  lines: string[],
): Promise<string> {
  const redis = new Cluster(
    cluster.nodes.map(n => ({ host: n.split(':')[0]!, port: Number(n.split(':')[1]) })),
    { enableReadyCheck: true, redisOptions: { maxRetriesPerRequest: 3 } },
  );
  redis.on('error', () => undefined);
  try {
    const shards = traceQueueShards(prefix, sent.shards, true);
    for (const [shard, where] of shards.entries()) {
      const mine = sent.traceIds
        .map((id, index) => ({ id, index }))
        .filter(t => missingTraceIds.has(t.id) && shardOfTrace(t.id, sent.shards) === shard);
      const sentHere = sent.traceIds.filter(id => shardOfTrace(id, sent.shards) === shard).length;
      const before = mine.filter(t => t.index <= sent.killedAfter).length;
      let line = `shard ${shard}: missing ${mine.length} of ${sentHere} (${before} sent before the kill, ${mine.length - before} after; indexes ${ranges(mine.map(t => t.index))})`;
      const queue = new Queue(where.name, { connection: redis, prefix: where.prefix });
      try {
        const counts = await queue.getJobCounts(...STATES, 'completed');
        line += `; jobs ${Object.entries(counts)
          .map(([s, n]) => `${s} ${n}`)
          .join(', ')}`;
        const base = `${where.prefix}:${where.name}`;
        line += `; marker ${await redis.zcard(`${base}:marker`)}`;
        // Active jobs whose lock is still renewed: held by a live worker that does not finish them.
        const active = await redis.lrange(`${base}:active`, 0, -1);
        const locked = await Promise.all(active.map(id => redis.exists(`${base}:${id}:lock`)));
        line += `; active locked ${locked.filter(Boolean).length}`;
        const stateOf = new Map<string, string>();
        for (const state of STATES)
          for (const job of await queue.getJobs([state], 0, 999, true)) {
            const data = job.data as { traceIds?: string[]; traceId?: string };
            for (const id of data.traceIds ?? (data.traceId ? [data.traceId] : []))
              if (missingTraceIds.has(id))
                stateOf.set(
                  id,
                  `${state}${job.attemptsMade ? ` after ${job.attemptsMade} tries` : ''}${job.failedReason ? ` (${job.failedReason.slice(0, 100)})` : ''}`,
                );
          }
        const byState = new Map<string, number>();
        for (const t of mine) {
          const key = `job ${stateOf.get(t.id) ?? 'none'} ${await bufferOf(redis, queue, prefix, t.id)}`;
          byState.set(key, (byState.get(key) ?? 0) + 1);
        }
        for (const [key, n] of byState) line += `\n  ${n}× ${key}`;
      } catch (error) {
        line += `; reading the queue failed: ${(error as Error).message}`;
      } finally {
        await queue.close().catch(() => undefined);
      }
      lines.push(line);
    }
  } finally {
    redis.disconnect();
  }
  lines.push(byBufferMaster(cluster, missingTraceIds));
  lines.push(blockedClients(cluster));
  return lines.join('\n');
}

/**
 * A trace's buffer hash in a few words: gone, or its span count, root, scored mark and claim (the
 * job that holds the trace for good, and that job's state in the trace's shard).
 */
async function bufferOf(
  redis: Cluster,
  queue: Queue,
  prefix: string,
  traceId: string,
): Promise<string> {
  try {
    const [n, root, claim, scored] = await redis.hmget(
      bufferKeyOf(prefix, traceId),
      'n',
      'root',
      'claim',
      'scored',
    );
    if (n === null && scored === null) return 'buffer gone';
    const claimer = claim ? `a job ${await queue.getJobState(claim)}` : 'no job';
    const state = scored !== null ? 'scored' : `n=${n} root=${root || '-'} not scored`;
    return `buffer ${state}, claimed by ${claimer}`;
  } catch (error) {
    return `buffer unread (${(error as Error).message})`;
  }
}

/** The missing traces by the slot range of the master that holds their buffer hash. */
function byBufferMaster(cluster: RedisCluster, missingTraceIds: ReadonlySet<string>): string {
  try {
    const masters = cluster.topology().filter(n => n.role === 'master' && n.slots.length > 0);
    const counts = masters.map(m => {
      const inRange = (slot: number) => m.slots.some(([from, to]) => slot >= from && slot <= to);
      const n = [...missingTraceIds].filter(id => inRange(generateMulti([`{${id}}`]))).length;
      return `${m.slots.map(s => s.join('-')).join(',')}: ${n}`;
    });
    return `missing traces by their buffer's slots: ${counts.join('; ')}`;
  } catch (error) {
    return `buffer slots unread: ${(error as Error).message}`;
  }
}

/** Per live master: its slots, clients, and clients whose last command is a BZPOPMIN. */
function blockedClients(cluster: RedisCluster): string {
  try {
    return cluster
      .topology()
      .filter(n => n.role === 'master' && n.slots.length > 0)
      .map(n => {
        const clients = cluster.cli(n.port, 'client', 'list').split('\n').filter(Boolean);
        const blocking = clients.filter(c => c.includes(' cmd=bzpopmin'));
        return `master ${n.port} slots ${n.slots.map(s => s.join('-')).join(',')}: ${clients.length} clients, ${blocking.length} in bzpopmin (${blocking.filter(c => / flags=\w*b/.test(c)).length} blocked)`;
      })
      .join('\n');
  } catch (error) {
    return `masters unread: ${(error as Error).message}`;
  }
}

/** Sorted integers as ranges: `3-5,9`. */
function ranges(values: number[]): string {
  const out: string[] = [];
  for (let i = 0; i < values.length;) {
    let j = i;
    while (j + 1 < values.length && values[j + 1] === values[j]! + 1) j++;
    out.push(i === j ? `${values[i]}` : `${values[i]}-${values[j]}`);
    i = j + 1;
  }
  return out.join(',') || '-';
}
