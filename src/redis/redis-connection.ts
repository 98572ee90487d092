import { readFileSync } from 'node:fs';
import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';

/** How long a span-buffer command may take before the receiver gives up and answers 503. */
const COMMAND_TIMEOUT_MS = 3000;

/** A single Redis or a Redis Cluster: every Redis part of the `bullmq` driver takes either. */
export type RedisClient = Redis | Cluster;

/**
 * Where Redis is: one server by URL, or a Redis Cluster by seed nodes, with the ACL user,
 * password and TLS settings ioredis takes (for a URL they override the URL's own).
 */
export interface RedisTarget {
  url?: string;
  /** `host:port` seed nodes; ioredis discovers the rest of the cluster from them. */
  clusterNodes?: readonly string[];
  username?: string;
  password?: string;
  tls?: boolean;
  /** A PEM file of the CA that signed the servers' certificates. */
  tlsCaFile?: string;
}

/** The {@link RedisTarget} a validated `queue` config section names. */
export function redisTargetOf(queue: {
  redisUrl?: string | undefined;
  redisClusterNodes?: readonly string[] | undefined;
  redisUsername?: string | undefined;
  redisPassword?: string | undefined;
  redisTls?: boolean | undefined;
  redisTlsCaFile?: string | undefined;
}): RedisTarget {
  return {
    ...(queue.redisUrl !== undefined && { url: queue.redisUrl }),
    ...(queue.redisClusterNodes !== undefined && { clusterNodes: queue.redisClusterNodes }),
    ...(queue.redisUsername !== undefined && { username: queue.redisUsername }),
    ...(queue.redisPassword !== undefined && { password: queue.redisPassword }),
    ...(queue.redisTls && { tls: true }),
    ...(queue.redisTlsCaFile !== undefined && { tlsCaFile: queue.redisTlsCaFile }),
  };
}

/**
 * What a connection is for. `bullmq`: a worker's BullMQ workers and the queues its jobs add to,
 * which wait for Redis however long it is away. `producer`: a BullMQ queue that adds jobs while a
 * caller waits (the receiver's trace jobs, `spanscore jobs`): BullMQ's settings, but on a cluster
 * a command fails after ioredis's 16 tries (about 3 s of a failover), so the receiver answers 503
 * rather than hold the request. `commands`: spanscore's own commands, fail-fast.
 */
export type RedisRole = 'bullmq' | 'producer' | 'commands';

/**
 * Opens a Redis connection for one role, to one server (`url`) or a Redis Cluster
 * (`clusterNodes`). BullMQ's queues and workers need `maxRetriesPerRequest: null` (they block and
 * retry themselves); on a cluster also `enableReadyCheck`, as BullMQ documents. The span buffer's
 * commands instead fail fast while Redis is unreachable (`enableOfflineQueue: false`, one retry) or
 * slower than 3 s per command, so the receiver answers 503 at once rather than hold requests (and
 * their memory) until exporters time out; on a cluster that includes the seconds between a master
 * dying and its replica taking over. A command that timed out may still have run; the exporter's
 * retry then appends the spans twice, which reading dedupes by span id.
 *
 * The commands role pipelines automatically: commands issued in one event-loop turn go out in one
 * write per server, which on a cluster is also what lets a batch span many slots.
 */
export function createRedisConnection(target: string | RedisTarget, role: RedisRole): RedisClient {
  const t: RedisTarget = typeof target === 'string' ? { url: target } : target;
  const auth: RedisOptions = {
    ...(t.username !== undefined && { username: t.username }),
    ...(t.password !== undefined && { password: t.password }),
    ...((t.tls || t.tlsCaFile) && {
      tls: t.tlsCaFile ? { ca: readFileSync(t.tlsCaFile) } : {},
    }),
  };
  const perRole: RedisOptions =
    role !== 'commands'
      ? { maxRetriesPerRequest: null }
      : {
          maxRetriesPerRequest: 1,
          connectTimeout: 2000,
          commandTimeout: COMMAND_TIMEOUT_MS,
        };
  if (t.clusterNodes) {
    const options: ClusterOptions = {
      redisOptions: { ...auth, ...perRole },
      enableReadyCheck: true,
      enableOfflineQueue: role !== 'commands',
      enableAutoPipelining: role === 'commands',
      // While a failed master's replica is promoted, retry soon rather than wait out a timeout.
      retryDelayOnFailover: 200,
      retryDelayOnClusterDown: 200,
      // ioredis gives a command 16 tries (each retry above uses one), about 3 s of a failover.
      // A worker's BullMQ connections wait out a failover as they wait out a restart of one Redis
      // (`maxRetriesPerRequest: null`): past 16 tries BullMQ's own commands failed, and a worker
      // could stop taking a queue shard's jobs. While the nodes disagree on a slot's owner, a
      // MOVED can point back where the command came from: those wait between redirections
      // rather than spin. The other roles keep the 16 tries: a request is answered 503, not held.
      ...(role === 'bullmq' && {
        maxRedirections: Number.POSITIVE_INFINITY,
        retryDelayOnMoved: 100,
      }),
      // ioredis learns the new slot owner from a MOVED reply, which a command sent to a dead
      // master never gets, and a MULTI whose commands are redirected only fails with EXECABORT:
      // re-read the slot map every 2 s so a failover is seen within the node timeout + 2 s.
      slotsRefreshInterval: 2000,
    };
    return new Cluster(t.clusterNodes.map(parseNode), options);
  }
  if (!t.url) throw new Error('createRedisConnection: a Redis URL or cluster nodes are needed');
  return new Redis(t.url, {
    ...auth,
    ...perRole,
    ...(role === 'commands' && { enableOfflineQueue: false, enableAutoPipelining: true }),
  });
}

/**
 * Sends a batch of commands whose keys may sit on different slots, and returns each reply in
 * order (rejecting with the first error). `send` issues the commands on the target it is given.
 * On a connection with automatic pipelining (the `commands` role, on one Redis or a cluster) the
 * target is the connection itself: every batch sent in one tick of the event loop (the traces a
 * worker marks scored when their export returns, the results store's write, …) goes out in one
 * write, grouped per master on a cluster, where an explicit pipeline must stay on one master. On
 * any other connection it is an explicit pipeline: one write, one read.
 */
export async function sendBatch<T>(
  redis: RedisClient,
  send: (target: T) => unknown[],
): Promise<unknown[]> {
  if (redis.isCluster || redis.options.enableAutoPipelining === true)
    return Promise.all(send(redis as unknown as T));
  const pipeline = redis.pipeline();
  send(pipeline as unknown as T);
  return ((await pipeline.exec()) ?? []).map(([error, value]) => {
    if (error) throw error;
    return value;
  });
}

function parseNode(node: string): { host: string; port: number } {
  const at = node.lastIndexOf(':');
  return { host: node.slice(0, at), port: Number(node.slice(at + 1)) };
}

/**
 * A connection error's message, with the node's own reason when ioredis's cluster client wraps it
 * (its "Failed to refresh slots cache." hides a NOAUTH or a refused connection in `lastNodeError`).
 */
export function describeRedisError(error: Error): string {
  const cause = (error as Error & { lastNodeError?: Error }).lastNodeError;
  return cause ? `${error.message} (${cause.message})` : error.message;
}

/**
 * Waits until a fail-fast connection is ready, for at most `timeoutMs`; rejects otherwise, with
 * the last connection error seen meanwhile. A connection without an offline queue refuses
 * commands while (re)connecting, including its first.
 */
export async function whenReady(redis: RedisClient, timeoutMs = 2000): Promise<void> {
  if (redis.status === 'ready') return;
  if (redis.status === 'wait') void redis.connect().catch(() => undefined);
  await new Promise<void>((resolve, reject) => {
    let last = '';
    const onError = (error: Error): void => {
      last = describeRedisError(error);
    };
    const done = (): void => {
      clearTimeout(timer);
      redis.off('ready', onReady);
      redis.off('error', onError);
    };
    const timer = setTimeout(() => {
      done();
      reject(
        new Error(
          `Redis not ready after ${timeoutMs} ms (status ${redis.status}${last ? `, last error: ${last}` : ''})`,
        ),
      );
    }, timeoutMs);
    function onReady(): void {
      done();
      resolve();
    }
    redis.once('ready', onReady);
    redis.on('error', onError);
  });
}

/**
 * Redis's `maxmemory-policy`, when it is not `noeviction`: BullMQ needs Redis to refuse writes
 * when full (the receiver then answers 503 and exporters retry) rather than evict keys, which
 * would silently drop queued jobs and buffered spans. `undefined` when it is `noeviction`, or
 * when the server does not let clients read its configuration (some managed services).
 */
export async function evictionPolicyWarning(redis: RedisClient): Promise<string | undefined> {
  try {
    await whenReady(redis, 10_000);
    const reply: unknown = await redis.config('GET', 'maxmemory-policy');
    const policy = Array.isArray(reply) ? (reply[1] as unknown) : undefined;
    if (typeof policy !== 'string') return undefined;
    if (policy === 'noeviction') return undefined;
    return `Redis maxmemory-policy is ${policy}: when Redis is full it evicts keys, and queued jobs and buffered spans with them; set it to noeviction (BullMQ requires it), and spanscore answers 503 while Redis is full`;
  } catch {
    return undefined;
  }
}
