import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { freePort, loopbackServerArgs } from './redis-server.js';

/** One node of a {@link RedisCluster}. */
export interface ClusterNode {
  port: number;
  role: 'master' | 'replica';
  /** Hash slot ranges it serves (masters), e.g. `[[0, 5460]]`. */
  slots: Array<[number, number]>;
}

/** A real Redis Cluster of private `redis-server` processes on loopback. */
export interface RedisCluster {
  /** Seed nodes as `REDIS_CLUSTER_NODES` takes them: `127.0.0.1:port,…`. */
  nodes: string[];
  /** Each node's role and slots, as `CLUSTER NODES` reports them now. */
  topology(): ClusterNode[];
  /** SIGKILLs one node's process (no shutdown, no save): a crash. */
  kill(port: number): void;
  /** Waits until every live node reports `cluster_state:ok` (after a failover, say). */
  waitHealthy(timeoutMs?: number): Promise<void>;
  /** Runs `redis-cli -p port …` and returns its output. */
  cli(port: number, ...args: string[]): string;
  /** Kills every node and deletes their folders. */
  stop(): Promise<void>;
}

/**
 * What a test or hook that starts a cluster gives it: two tries (a try waits up to 30 s for the
 * cluster to agree it is whole), where forming one takes 1–3 s alone and 8 s on a host loaded four
 * times over its cores. A cluster started inside a test would have vitest's 30 s for both.
 */
export const CLUSTER_START_TIMEOUT_MS = 90_000;

/**
 * One cluster for a test file: formed in `beforeAll` (with {@link CLUSTER_START_TIMEOUT_MS}, not
 * inside a test's 30 s) and stopped in `afterAll`, its keys with it. Call it at the file's top
 * level; the function it returns gives the tests the cluster.
 */
export function clusterForTests(options: ClusterOptions = {}): () => RedisCluster {
  let cluster: RedisCluster | undefined;
  beforeAll(async () => {
    cluster = await startRedisCluster(options);
  }, CLUSTER_START_TIMEOUT_MS);
  afterAll(async () => {
    await cluster?.stop();
  });
  return () => {
    if (!cluster) throw new Error('the cluster is formed in beforeAll: ask for it from a test');
    return cluster;
  };
}

/** How {@link startRedisCluster} builds a cluster. */
export interface ClusterOptions {
  masters?: number;
  replicasPerMaster?: number;
  nodeTimeoutMs?: number;
  /** Every node requires it (`requirepass`, `masterauth`). */
  password?: string;
}

/**
 * Starts `masters × (1 + replicasPerMaster)` `redis-server --cluster-enabled yes` processes on free
 * loopback ports and joins them with `redis-cli --cluster create`, which gives the masters equal
 * slot ranges in the order given (1 or 2 masters, which it refuses, are joined by hand the same way). `nodeTimeoutMs` is how long a silent master has before its replica
 * takes over (Redis's default is 15 s; tests use 2 s).
 */
export async function startRedisCluster(options: ClusterOptions = {}): Promise<RedisCluster> {
  // A second try on fresh ports: a port found free can be taken before its node binds it (a test
  // file beside this one starting servers, a client's connection taking the bus port).
  try {
    return await startOnce(options);
  } catch (first) {
    try {
      return await startOnce(options);
    } catch (second) {
      throw new Error(
        `a Redis Cluster failed to form twice:\n${(first as Error).message}\n${(second as Error).message}`,
        { cause: second },
      );
    }
  }
}

/**
 * A free loopback port whose cluster bus port (10,000 above it, which Redis derives and cannot be
 * told otherwise in 7.0) is free too and no higher than 65535: a node that cannot bind its bus
 * port exits at start.
 */
async function freeClusterPort(): Promise<number> {
  for (;;) {
    const port = await freePort();
    if (port + 10_000 <= 65_535 && (await isFree(port + 10_000))) return port;
  }
}

const isFree = (port: number): Promise<boolean> =>
  freePort(port).then(
    () => true,
    () => false,
  );

async function startOnce(options: ClusterOptions): Promise<RedisCluster> {
  const masters = options.masters ?? 3;
  const replicas = options.replicasPerMaster ?? 0;
  const dir = mkdtempSync(join(tmpdir(), 'spanscore-cluster-'));
  const ports: number[] = [];
  for (let i = 0; i < masters * (1 + replicas); i++) ports.push(await freeClusterPort());
  const children = new Map<number, ChildProcess>();
  for (const port of ports) {
    const child = spawn(
      'redis-server',
      [
        ...loopbackServerArgs(port, dir),
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        join(dir, `nodes-${port}.conf`),
        // A node that was never MEET-ed (a one-master cluster) would otherwise not know its own
        // address, and CLUSTER SLOTS would name it "".
        '--cluster-announce-ip',
        '127.0.0.1',
        '--cluster-node-timeout',
        String(options.nodeTimeoutMs ?? 2000),
        ...(options.password
          ? ['--requirepass', options.password, '--masterauth', options.password]
          : []),
      ],
      { stdio: 'ignore' },
    );
    children.set(port, child);
  }
  const auth = options.password ? ['--no-auth-warning', '-a', options.password] : [];
  const cli = (port: number, ...args: string[]): string =>
    spawnSync('redis-cli', ['-p', String(port), ...auth, ...args], {
      encoding: 'utf8',
    }).stdout.trim();
  const stop = async (): Promise<void> => {
    await Promise.all(
      [...children.values()].map(child =>
        child.exitCode !== null || child.signalCode !== null
          ? Promise.resolve()
          : new Promise(resolve => {
              child.once('exit', resolve);
              child.kill('SIGKILL');
            }),
      ),
    );
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    return await form();
  } catch (error) {
    await stop(); // a cluster that failed to form leaves no process behind
    throw error;
  }

  async function form(): Promise<RedisCluster> {
    for (const port of ports) await until(() => cli(port, 'ping') === 'PONG', 5000, `node ${port}`);

    if (masters < 3) {
      // `redis-cli --cluster create` wants 3 masters at least; smaller clusters (for sizing) are
      // joined by hand, with the same equal split of the slots.
      if (replicas > 0) throw new Error('replicas need 3 masters or more');
      ports.forEach((port, i) => {
        const from = Math.round((i * 16384) / masters);
        const to = Math.round(((i + 1) * 16384) / masters) - 1;
        cli(port, 'cluster', 'addslotsrange', String(from), String(to));
        if (i > 0) cli(port, 'cluster', 'meet', '127.0.0.1', String(ports[0]));
      });
    } else {
      create();
    }
    function create(): void {
      const create = spawnSync(
        'redis-cli',
        [
          ...auth,
          '--cluster',
          'create',
          ...ports.map(p => `127.0.0.1:${p}`),
          '--cluster-replicas',
          String(replicas),
          '--cluster-yes',
        ],
        { encoding: 'utf8' },
      );
      if (create.status !== 0)
        throw new Error(`redis-cli --cluster create failed:\n${create.stdout}${create.stderr}`);
    }

    const killed = new Set<number>();
    const alive = (): number[] => ports.filter(p => !killed.has(p));
    const topology = (): ClusterNode[] => {
      const port = alive()[0]!;
      return cli(port, 'cluster', 'nodes')
        .split('\n')
        .filter(line => !line.includes('fail') && line.includes('connected'))
        .map(line => {
          const fields = line.split(' ');
          const nodePort = Number(/:(\d+)@/.exec(fields[1]!)![1]);
          const slots = fields
            .slice(8)
            .filter(f => /^\d+(-\d+)?$/.test(f))
            .map(f => {
              const [from, to] = f.split('-').map(Number);
              return [from!, to ?? from!] as [number, number];
            });
          return {
            port: nodePort,
            role: fields[2]!.includes('master') ? 'master' : 'replica',
            slots,
          };
        });
    };
    // Replicas of a killed master are promoted, so the count to wait for goes down with each kill.
    const expectedReplicas = (): number => alive().length - masters;
    const waitHealthy = async (timeoutMs = 30_000): Promise<void> => {
      await until(
        () =>
          alive().every(p => cli(p, 'cluster', 'info').includes('cluster_state:ok')) &&
          topology().filter(n => n.role === 'master' && n.slots.length > 0).length === masters &&
          topology().filter(n => n.role === 'replica').length === expectedReplicas() &&
          // A replica that has not finished its first sync cannot take over from its master.
          topology()
            .filter(n => n.role === 'replica')
            .every(n => cli(n.port, 'info', 'replication').includes('master_link_status:up')),
        timeoutMs,
        'cluster_state:ok on every node, and every replica in sync',
        // What the cluster said last, so a failure to form says why.
        () =>
          alive()
            .map(
              p =>
                `node ${p}: ${/cluster_state:\w+/.exec(cli(p, 'cluster', 'info'))?.[0] ?? 'no answer'}\n${cli(p, 'cluster', 'nodes')}`,
            )
            .join('\n'),
      );
    };
    await waitHealthy();

    return {
      nodes: ports.map(p => `127.0.0.1:${p}`),
      topology,
      kill(port) {
        killed.add(port);
        children.get(port)?.kill('SIGKILL');
      },
      waitHealthy,
      cli,
      stop,
    };
  }
}

async function until(
  check: () => boolean,
  timeoutMs: number,
  what: string,
  state: () => string = () => '',
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}\n${state()}`.trim());
    await new Promise(r => setTimeout(r, 100));
  }
}
