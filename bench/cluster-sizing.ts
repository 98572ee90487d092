/**
 * `npm run bench:cluster`: sizing on Redis Cluster. In one run: the load report's closed loop
 * (receiver, 2 workers and the load generator as separate processes, bench/load-bench.ts) on the
 * local single Redis as the baseline, then on private clusters of 1, 2 and 3 masters (no replicas)
 * with as many queue shards. For each: scored spans/s, Redis commands per trace, each master's
 * share of the commands, Redis CPU per scored span (`INFO cpu`, every master summed) and Redis
 * memory per buffered trace. Writes bench/results/cluster.json.
 *
 * On this 2-core machine the Redis servers share the cores with the receiver, the workers and the
 * generator, so throughput here measures the pipeline's CPU, not the cluster's ceiling; the Redis
 * CPU per span and bytes per trace are what a capacity plan scales (docs/operations.md, "Capacity plan").
 *
 * Options: --load-seconds N (default 30).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { startRedisCluster } from '../test/helpers/redis-cluster.js';
import { loadBench, redisBytesPerTrace, type LoadResult } from './load-bench.js';
import { fmt } from './measure.js';

const secondsArg = process.argv.indexOf('--load-seconds');
const seconds = secondsArg > 0 ? Number(process.argv[secondsArg + 1]) : 30;

console.log('building dist/ (the processes run the built CLI)');
execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' });

interface Row {
  setup: string;
  masters: number;
  bytesPerTrace: number;
  run: LoadResult;
}
const rows: Row[] = [];

const single = await loadBench({ workers: 2, seconds });
rows.push({
  setup: 'one Redis (REDIS_URL)',
  masters: 1,
  bytesPerTrace: (await redisBytesPerTrace()).bytesPerTrace,
  run: single,
});

for (const masters of [1, 2, 3]) {
  const cluster = await startRedisCluster({ masters });
  try {
    const target = {
      masters: cluster
        .topology()
        .filter(n => n.role === 'master')
        .map(n => `127.0.0.1:${n.port}`),
      shards: masters,
    };
    const bytes = await redisBytesPerTrace(100, target);
    const run = await loadBench({ workers: 2, seconds, cluster: target });
    rows.push({
      setup: `cluster, ${masters} master${masters > 1 ? 's' : ''}, ${masters} shard${masters > 1 ? 's' : ''}`,
      masters,
      bytesPerTrace: bytes.bytesPerTrace,
      run,
    });
  } finally {
    await cluster.stop();
  }
}

console.log(
  `\nRedis Cluster sizing (closed loop, 2 workers, ${seconds} s each; 512-span requests of 20-span traces)`,
);
console.log(
  '  setup                             scored spans/s  vs one Redis  cmds/trace  Redis CPU µs/span  bytes/trace  command share per master',
);
for (const r of rows) {
  console.log(
    `  ${r.setup.padEnd(33)} ${fmt(r.run.scoredSpansPerSecond).padStart(14)} ${`${(r.run.scoredSpansPerSecond / single.scoredSpansPerSecond).toFixed(2)}×`.padStart(13)} ${r.run.redisCommandsPerTrace!.total.toFixed(1).padStart(11)} ${r.run.redisCpuMicrosPerSpan!.toFixed(1).padStart(18)} ${fmt(r.bytesPerTrace).padStart(12)}  ${r.run.redisNodes!.map(n => `${(n.commandShare * 100).toFixed(0)}%`).join(' / ')}`,
  );
}
for (const r of rows)
  console.log(
    `  CPU per scored span, ${r.setup}: ${Object.entries(r.run.cpuMicrosPerSpan)
      .map(([role, us]) => `${role} ${us.toFixed(1)} µs`)
      .join(', ')}, Redis ${r.run.redisCpuMicrosPerSpan!.toFixed(1)} µs`,
  );
const lost = rows.map(r => r.run.tracesSent - r.run.tracesScored);
console.log(`  traces lost per run: ${lost.join(', ')}`);

mkdirSync(new URL('results/', import.meta.url), { recursive: true });
writeFileSync(
  new URL('results/cluster.json', import.meta.url),
  `${JSON.stringify({ date: new Date().toISOString(), seconds, rows }, null, 2)}\n`,
);
