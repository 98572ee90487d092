import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import pidusage from 'pidusage';
import { createOtlpHttpReceiver } from '../src/ingest/otlp-http-receiver.js';
import { decodeOtlpProtobuf } from '../src/ingest/decode-otlp-protobuf.js';
import { Redis } from 'ioredis';
import { createBullmqTraceSink } from '../src/queue/bullmq-trace-assembler.js';
import { traceQueueShards } from '../src/queue/queue-shards.js';
import { createRedisConnection } from '../src/redis/redis-connection.js';
import { REDIS_URL, redisFor, testPrefix } from '../test/helpers/redis.js';
import { childPids } from '../test/helpers/process-tree.js';
import { GcTally, sumGcFigures, type GcFigures } from './gc-trace.js';
import { median, percentile, slopePerMinute } from './measure.js';
import { agentSpans } from './reading-bench.js';
import { configSchema } from '../src/config/config-schema.js';
import { bullmqSinkLimits, bullmqTraceOptions } from '../src/queue/bullmq-queue-driver.js';

/** Every setting at its default. */
const DEFAULTS = configSchema.parse({});

const ROOT = new URL('../', import.meta.url).pathname;
const SETTLE_MS = 200;
/** Spans in each trace the load generator sends. */
export const SPANS_PER_TRACE = 20;
/** Ready → exported percentiles in ms, and how many traces took longer than a second. */
export interface LatencyStats {
  p50: number;
  p99: number;
  max: number;
  overOneSecond: number;
}

const latencyStats = (xs: readonly number[]): LatencyStats => ({
  p50: percentile(xs, 0.5),
  p99: percentile(xs, 0.99),
  max: percentile(xs, 1),
  overOneSecond: xs.filter(x => x > 1000).length,
});

/** The start of a run left out of `steadyLatencyMs`: cold JIT and connections. */
const WARM_UP_MS = 5000;

/** What one load run measured. */
export interface LoadResult {
  driver: 'bullmq' | 'memory';
  /** The memory driver's `queue.memoryThreads`, when the run set it. */
  memoryThreads?: 1 | 2;
  /** Whether the spanscore processes wrote the results store (`results.write`). */
  resultsWrite: boolean;
  workers: number;
  /** Open-loop target in spans/s, or 0 for closed loop. */
  rate: number;
  seconds: number;
  connections: number;
  /** Spans the receiver accepted per second while the generator ran. */
  acceptedSpansPerSecond: number;
  /** Spans of traces scored and exported, per second, from the first request to the last span. */
  scoredSpansPerSecond: number;
  /** Traces whose every request the receiver accepted (200). */
  tracesSent: number;
  tracesScored: number;
  /** Accepted traces that ended expired (`spanscore_traces_expired_total`, summed over processes). */
  tracesExpired: number;
  rejected429: number;
  rejected503: number;
  errors: number;
  /** From a trace becoming ready (its last request accepted + the settle window) to its evaluation spans exported. */
  latencyMs: LatencyStats;
  /** The same, for traces accepted after the first {@link WARM_UP_MS} (processes warmed up). */
  steadyLatencyMs: LatencyStats;
  /**
   * How long the receiving process (`serve`, or the receiver) took to answer `/healthz`, polled
   * every 50 ms while the generator ran (`Infinity` for a poll that failed).
   */
  healthzMs: LatencyStats & { polls: number };
  /**
   * The 5 slowest traces: seconds from the run's start to their acceptance, and their latency, to
   * tell one stall (the same second) from a tail spread over the run.
   */
  slowest: Array<{ acceptedAtS: number; latencyMs: number }>;
  /**
   * The latency split by stage, per trace job (a job holds one request's traces), for the jobs
   * whose whole life is still in BullMQ's event stream at the end (it keeps the last 10,000
   * events: in a closed loop the backlog is longer, and no job may qualify: `jobs` is then 0).
   * `undefined` with the memory driver (no BullMQ).
   */
  breakdown?: {
    jobs: number;
    /** From a job's first due time to its first activation (delay promotion and queueing). */
    dueToActiveMs: { p50: number; p99: number };
    /** From a job's last activation to its completion (reading, scoring, export). */
    activeToCompletedMs: { p50: number; p99: number };
    /** Jobs delayed again (some of their traces were not complete when first due). */
    redelayedShare: number;
  };
  /**
   * Peak RSS, the median RSS of the run's first and last quarters (flat when close), and the
   * least-squares slope after the first minute (or quarter, if shorter), in MB per minute.
   */
  rssMb: Record<
    string,
    { peak: number; firstQuarter: number; lastQuarter: number; slopePerMinute: number }
  >;
  /** `undefined` with the memory driver (no Redis), as are the other Redis figures. */
  redisUsedMemoryMb?: { peak: number; slopePerMinute: number };
  /**
   * Each process's V8 heap in use and its external memory (Buffers), from its own `/metrics`
   * (prom-client's `nodejs_heap_size_used_bytes`, `nodejs_external_memory_bytes`) each second:
   * peak and least-squares slope in MB per minute after the first minute, beside the RSS.
   */
  heapMb: Record<string, { peak: number; slopePerMinute: number; externalPeak: number }>;
  /**
   * Redis work per scored trace, from `INFO commandstats` before and after the run: every
   * command, those run inside Lua scripts included, by name, and in all.
   */
  redisCommandsPerTrace?: { total: number; byCommand: Record<string, number> };
  /**
   * Per Redis server (one, or each cluster master): its share of the run's commands and the CPU
   * seconds it used (`INFO cpu`, user + system), and the CPU time per scored span in µs.
   */
  redisNodes?: Array<{ node: string; commandShare: number; cpuSeconds: number }>;
  redisCpuMicrosPerSpan?: number;
  /**
   * CPU time (user + system) per scored span of each spanscore process (`receiver`, `worker 1`,
   * …; `serve` with the memory driver) from the load generator's start to the last evaluation
   * span, in µs: also CPU seconds per million scored spans.
   */
  cpuMicrosPerSpan: Record<string, number>;
  /**
   * CPU time the hypervisor gave to other guests (`steal` in /proc/stat), as a share of this
   * machine's CPU time: over the run, and in its worst second with when that was (s from the
   * start). A slow stretch with high steal was the shared host, not spanscore. Absent without
   * /proc/stat.
   */
  steal?: { share: number; worstSecondShare: number; worstAtS: number };
  /**
   * What V8's collector did in each spanscore role's processes (all their isolates) from the load's
   * start to its last evaluation span, from their `--trace-gc-nvp` lines (see `GcTally`).
   */
  gc?: Record<string, GcFigures>;
}

/**
 * The 60-second load report's run: a receiver (`spanscore serve --no-worker`) and `workers`
 * worker processes (`spanscore worker`) on the local Redis, a separate load-generator process
 * (bench/load/load-generator.ts: OTLP/protobuf, 512-span requests of 20-span agent traces), and a
 * local OTLP sink in this process that receives the evaluation spans. RSS of every spanscore
 * process and Redis's `used_memory` are sampled each second.
 */
export async function loadBench(options: LoadOptions): Promise<LoadResult> {
  const prefix = testPrefix().replace('test', 'bench');
  // A cluster is the bench's own, thrown away after the run: nothing to clean up there; the
  // memory driver uses no Redis.
  const redis =
    options.cluster || options.driver === 'memory'
      ? { cleanup: () => Promise.resolve() }
      : redisFor(prefix);
  try {
    return await loadRun(options, prefix, redis);
  } catch (error) {
    // A failed run must not leave its keys behind (a finished one cleans up itself).
    await redis.cleanup().catch(() => undefined);
    throw error;
  }
}

/** Options of {@link loadBench}. */
/**
 * The suite the load scores with: the 100 test cases `agentSpans` traces carry (`case-0` …
 * `case-99`), two deterministic scorers. Also the workload of the Redis commands budget test.
 */
export const LOAD_SUITE_YAML = `scorers: [tool_correctness, { name: tool_call_accuracy, expectedTool: get_weather }]\ntestCases:\n${Array.from(
  { length: 100 },
  (_, i) =>
    `  - { id: case-${i}, expectedTools: [search_flights, get_weather, book_hotel, lookup_order] }`,
).join('\n')}\n`;

export interface LoadOptions {
  /**
   * `bullmq`: a receiver and `workers` worker processes on Redis; `memory`: one `spanscore serve`
   * process with the embedded driver (receiver and workers in it, no Redis; `workers` is 0).
   * @defaultValue 'bullmq'
   */
  driver?: 'bullmq' | 'memory';
  workers: number;
  seconds: number;
  connections?: number;
  /** `worker.concurrency` of the spanscore processes. @defaultValue 32 */
  concurrency?: number;
  /** `results.maxResults` and `results.maxRuns` (the memory driver's results store bounds). */
  results?: { maxResults: number; maxRuns: number };
  /** `assembly.maxBufferedSpans` (memory driver); default the service's. */
  maxBufferedSpans?: number;
  /** `queue.memoryHeapMb` (memory driver; 0: Node's own heap); default the service's. */
  memoryHeapMb?: number;
  /**
   * `queue.memoryThreads` (memory driver: 2, receiving and scoring on threads of their own; 1,
   * one thread); default the service's. Not with a build from before 2026-12-02, whose config has
   * no such key.
   */
  memoryThreads?: 1 | 2;
  /** `NODE_OPTIONS` of the spanscore processes (e.g. a heap limit). */
  nodeOptions?: string;
  /**
   * The built CLI the spanscore processes run (another commit's, for an A/B comparison).
   * @defaultValue this tree's dist/cli/bin.js
   */
  cli?: string;
  /** Open-loop target in spans/s; default closed loop (as fast as accepted). */
  rate?: number;
  /**
   * `traffic`: every trace carries a session id (`session.id`, three to a session);
   * `traffic-and-case`: and the suite has a session test case none of them names, so a build
   * with sessions reads and looks each one up (none is held); `traffic-and-health`: and
   * `toolHealth.sessions` is on, so every conversation is held and scored across its turns
   * (tool_loops, tool_errors). A build before sessions is given `traffic` (its suite schema has
   * no `session`).
   */
  sessions?: 'traffic' | 'traffic-and-case' | 'traffic-and-health';
  /**
   * How long the evaluation-span backend takes to answer each export, in ms (a slow tracing
   * backend); its spans count as exported when they arrive. @defaultValue 0
   */
  backendDelayMs?: number;
  /** Write V8 CPU profiles of the spanscore processes here (`--cpu-prof`, one file per process). */
  profileDir?: string;
  /**
   * Write a profile of what each spanscore isolate promoted to V8's old generation here, by
   * allocation site (`bench/load/promoted-sampler.mjs`), sampled over the middle of the run.
   */
  promotedProfileDir?: string;
  /** How long run records are kept (`results.retentionHours`); default the service's 24 h. */
  resultsRetentionHours?: number;
  /** `results.layout` (2: each result written once); default the service's, 1. */
  resultsLayout?: 1 | 2;
  /**
   * `results.write`: false runs without the results store (to measure its share of the cost).
   * @defaultValue true
   */
  resultsWrite?: boolean;
  /** Run on this Redis Cluster (`host:port` of every master) with this many queue shards. */
  cluster?: { masters: string[]; shards: number };
}

async function loadRun(
  options: LoadOptions,
  prefix: string,
  redis: { cleanup: () => Promise<void> },
): Promise<LoadResult> {
  const connections = options.connections ?? 8;
  const memory = options.driver === 'memory';
  const dir = mkdtempSync(join(tmpdir(), 'spanscore-load-'));
  writeFileSync(
    join(dir, 'suite.yaml'),
    options.sessions === 'traffic-and-case'
      ? `${LOAD_SUITE_YAML}  - { id: conversation, session: true, expectedCalls: [lookup_order] }\n`
      : LOAD_SUITE_YAML,
  );

  // The sink: evaluation spans per trace, and when the trace's last one arrived.
  const exportedAt = new Map<string, number>();
  const perTrace = new Map<string, number>();
  const sink = createOtlpHttpReceiver({
    sink: {
      accept: spans => {
        const now = Date.now();
        for (const s of spans) {
          const n = (perTrace.get(s.traceId) ?? 0) + 1;
          perTrace.set(s.traceId, n);
          if (n === 2) exportedAt.set(s.traceId, now);
        }
        const delayMs = options.backendDelayMs ?? 0;
        return delayMs > 0
          ? new Promise(resolve => setTimeout(resolve, delayMs))
          : Promise.resolve();
      },
    },
    maxBodyBytes: 256 * 1024 * 1024,
  });
  await sink.listen({ port: 0, host: '127.0.0.1' });
  const sinkUrl = `http://127.0.0.1:${(sink.server.address() as { port: number }).port}/v1/traces`;
  writeFileSync(
    join(dir, 'config.yaml'),
    [
      memory
        ? `queue: { driver: memory${options.memoryHeapMb !== undefined ? `, memoryHeapMb: ${options.memoryHeapMb}` : ''}${options.memoryThreads !== undefined ? `, memoryThreads: ${options.memoryThreads}` : ''} }`
        : options.cluster
          ? `queue: { driver: bullmq, redisClusterNodes: [${options.cluster.masters.join(', ')}], prefix: ${prefix}, shards: ${options.cluster.shards} }`
          : `queue: { driver: bullmq, redisUrl: "${REDIS_URL}", prefix: ${prefix} }`,
      `assembly: { settleMs: ${SETTLE_MS}, maxWaitMs: 10000, maxQueuedTraces: 200000${options.maxBufferedSpans ? `, maxBufferedSpans: ${options.maxBufferedSpans}` : ''} }`,
      `worker: { concurrency: ${options.concurrency ?? 32} }`,
      // Conversations scored a second after their last turn, within the run that measures them.
      ...(options.sessions === 'traffic-and-health'
        ? ['toolHealth: { sessions: true }', 'sessions: { idleMs: 1000 }']
        : []),
      // Only what differs from the defaults: another commit's CLI (an A/B) may not know a field.
      ...(options.resultsRetentionHours !== undefined ||
      options.results ||
      options.resultsLayout !== undefined ||
      options.resultsWrite === false
        ? [
            `results: { ${[
              ...(options.resultsRetentionHours !== undefined
                ? [`retentionHours: ${options.resultsRetentionHours}`]
                : []),
              ...(options.results
                ? [
                    `maxResults: ${options.results.maxResults}`,
                    `maxRuns: ${options.results.maxRuns}`,
                  ]
                : []),
              ...(options.resultsWrite === false ? ['write: false'] : []),
              ...(options.resultsLayout !== undefined ? [`layout: ${options.resultsLayout}`] : []),
            ].join(', ')} }`,
          ]
        : []),
      `export: { url: "${sinkUrl}", logResults: false }`,
      'suites: [suite.yaml]',
      '',
    ].join('\n'),
  );

  const children: ChildProcess[] = [];
  // Each spanscore process's collections, by its pid (summed by role at the end, as CPU is).
  const gcTallies = new Map<number, GcTally>();
  // However the bench ends (a crash included), no spanscore process outlives it.
  const killAll = (): void => children.forEach(c => c.exitCode === null && c.kill('SIGKILL'));
  process.once('exit', killAll);
  const spawnCli = async (args: string[], ready: RegExp): Promise<[ChildProcess, string]> => {
    // The built CLI, as users run it (`npm run bench` builds it first).
    const child = spawn(
      process.execPath,
      [
        ...(options.profileDir ? ['--cpu-prof', `--cpu-prof-dir=${options.profileDir}`] : []),
        // One line a collection on stdout, tallied below (a few hundred lines a second at most).
        '--trace-gc-nvp',
        options.cli ?? join(ROOT, 'dist/cli/bin.js'),
        ...args,
        '--config',
        join(dir, 'config.yaml'),
      ],
      {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: {
          ...process.env,
          REDIS_URL: undefined,
          ...(options.nodeOptions && { NODE_OPTIONS: options.nodeOptions }),
          // From 5 s after start-up (the load has begun) for half the run, at most 10 s.
          ...(options.promotedProfileDir && {
            NODE_OPTIONS: `${options.nodeOptions ?? ''} --import "${join(ROOT, 'bench/load/promoted-sampler.mjs')}"`,
            SPANSCORE_PROMOTED_PROFILE: `${options.promotedProfileDir},5000,${Math.min(10_000, options.seconds * 500)}`,
          }),
        },
      },
    );
    children.push(child);
    const tally = new GcTally();
    gcTallies.set(child.pid!, tally);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => tally.feed(chunk));
    let err = '';
    return new Promise((resolve, reject) => {
      child.stderr.on('data', (d: Buffer) => {
        err += d.toString();
        const match = ready.exec(err);
        if (match) resolve([child, match[1] ?? '']);
      });
      child.on('exit', code => reject(new Error(`${args[0]} exited ${code}:\n${err}`)));
    });
  };
  const [receiver, url] = memory
    ? await spawnCli(
        ['serve', '--port', '0', '--host', '127.0.0.1'],
        /listening on (\S+) \(memory driver\)/,
      )
    : await spawnCli(
        ['serve', '--no-worker', '--port', '0', '--host', '127.0.0.1'],
        /listening on (\S+) \(bullmq driver\)/,
      );
  const workers: ChildProcess[] = [];
  // Each process's own /metrics (the receiver's port; a worker's --metrics-port), for heap
  // against RSS.
  const metricsUrls = new Map<string, string>([
    [memory ? 'serve' : 'receiver', url.replace(/\/v1\/traces$/, '/metrics')],
  ]);
  for (let i = 0; i < (memory ? 0 : options.workers); i++) {
    const [worker, metricsUrl] = await spawnCli(
      ['worker', '--metrics-port', '0'],
      /metrics at (\S+)/,
    );
    workers.push(worker);
    metricsUrls.set(`worker ${i + 1}`, metricsUrl);
  }

  const roles = new Map<number, string>([[receiver.pid!, memory ? 'serve' : 'receiver']]);
  workers.forEach((w, i) => roles.set(w.pid!, `worker ${i + 1}`));
  // A process a role started counts toward that role, its memory the sum of the two: before
  // 2026-12-02 the memory driver's `serve` ran its service in a child process with a bounded heap
  // (a thread since), and an A/B runs older builds.
  for (const [pid, role] of [...roles]) for (const child of childPids(pid)) roles.set(child, role);
  const rss = new Map<string, number[]>([...roles.values()].map(r => [r, []]));
  const heap = new Map<string, number[]>([...roles.values()].map(r => [r, []]));
  const external = new Map<string, number[]>([...roles.values()].map(r => [r, []]));
  const redisMemory: number[] = [];
  // INFO goes to each server (each cluster master) on its own connection, and is summed.
  const servers = memory
    ? []
    : (options.cluster?.masters.map(node => `redis://${node}`) ?? [REDIS_URL]);
  const infoConnections = servers.map(url => new Redis(url));
  const infoAll = (section: string): Promise<string[]> =>
    Promise.all(infoConnections.map(c => c.info(section)));
  const steal: Array<{ at: number; steal: number; total: number }> = [];
  const sampleSteal = (): void => {
    const cpu = readCpuTimes();
    if (cpu) steal.push({ at: Date.now(), ...cpu });
  };
  sampleSteal();
  const sample = setInterval(() => {
    sampleSteal();
    void pidusage([...roles.keys()]).then(
      stats => {
        const sums = new Map<string, number>();
        for (const [pid, stat] of Object.entries(stats)) {
          const role = roles.get(Number(pid))!;
          sums.set(role, (sums.get(role) ?? 0) + stat.memory / 1024 / 1024);
        }
        for (const [role, mb] of sums) rss.get(role)?.push(mb);
      },
      () => undefined,
    );
    for (const [role, metricsUrl] of metricsUrls)
      void fetch(metricsUrl).then(
        async response => {
          const text = await response.text();
          const gauge = (name: string): number =>
            Number(new RegExp(`^${name} ([\\d.e+]+)`, 'm').exec(text)?.[1] ?? NaN) / 1024 / 1024;
          heap.get(role)?.push(gauge('nodejs_heap_size_used_bytes'));
          external.get(role)?.push(gauge('nodejs_external_memory_bytes'));
        },
        () => undefined,
      );
    void infoAll('memory').then(
      infos =>
        redisMemory.push(
          infos.reduce((sum, info) => sum + Number(/used_memory:(\d+)/.exec(info)?.[1] ?? 0), 0) /
            1024 /
            1024,
        ),
      () => undefined,
    );
  }, 1000);

  const statsBefore = (await infoAll('commandstats')).map(parseCommandStats);
  const cpuBefore = (await infoAll('cpu')).map(parseCpuSeconds);
  // Each process's CPU time when the load starts: start-up (module loading, connecting) is not
  // the cost of scoring.
  const cpuAtStart = await cpuTimes(roles);
  for (const tally of gcTallies.values()) tally.start();
  const out = join(dir, 'load.json');
  const started = Date.now();
  // Liveness under the load: `/healthz` of the process that receives, every 50 ms.
  const healthzUrl = url.replace(/\/v1\/traces$/, '/healthz');
  const healthzMs: number[] = [];
  let polling = true;
  const polls = (async () => {
    while (polling) {
      const t0 = performance.now();
      const response = await fetch(healthzUrl).catch(() => undefined);
      await response?.arrayBuffer();
      healthzMs.push(response?.ok ? performance.now() - t0 : Infinity);
      await new Promise(r => setTimeout(r, 50));
    }
  })();
  const generator = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      join(ROOT, 'bench/load/load-generator.ts'),
      url,
      String(options.seconds),
      String(connections),
      out,
      String(options.rate ?? 0),
      ...(options.sessions ? ['sessions'] : []),
    ],
    { cwd: ROOT, stdio: 'inherit' },
  );
  const code = await new Promise<number | null>(resolve => generator.on('exit', resolve));
  polling = false;
  await polls;
  if (code !== 0) throw new Error(`the load generator exited ${code}`);
  const load = JSON.parse(readFileSync(out, 'utf8')) as {
    seconds: number;
    spansAccepted: number;
    rejected429: number;
    rejected503: number;
    errors: number;
    traces: Record<string, number>;
  };
  const sent = Object.keys(load.traces).length;
  const drainDeadline = Date.now() + 60_000;
  while (exportedAt.size < sent && Date.now() < drainDeadline)
    await new Promise(r => setTimeout(r, 100));
  clearInterval(sample);
  const cpuAtEnd = await cpuTimes(roles);
  for (const tally of gcTallies.values()) tally.stop();
  // Accepted means scored: what ended expired instead, by every process's own count.
  let tracesExpired = 0;
  for (const metricsUrl of metricsUrls.values()) {
    const text = await fetch(metricsUrl)
      .then(r => r.text())
      .catch(() => '');
    tracesExpired += Number(/^spanscore_traces_expired_total (\d+)/m.exec(text)?.[1] ?? 0);
  }
  let lastExport = 0;
  for (const at of exportedAt.values()) if (at > lastExport) lastExport = at;

  const exported = Object.entries(load.traces).filter(([id]) => exportedAt.has(id));
  const latencyOf = ([id, acceptedAt]: [string, number]): number =>
    exportedAt.get(id)! - (acceptedAt + SETTLE_MS);
  const latencies = exported.map(latencyOf);
  const steady = exported.filter(([, at]) => at >= started + WARM_UP_MS).map(latencyOf);

  const statsAfter = (await infoAll('commandstats')).map(parseCommandStats);
  const cpuAfter = (await infoAll('cpu')).map(parseCpuSeconds);
  const byCommand: Record<string, number> = {};
  let totalCommands = 0;
  const perServer = servers.map(() => 0);
  statsAfter.forEach((after, i) => {
    for (const [command, calls] of after) {
      const n = calls - (statsBefore[i]!.get(command) ?? 0);
      // INFO itself and the sampling above are the bench's; CLUSTER (slot maps) the client's.
      if (n <= 0 || command === 'info' || command.startsWith('cluster')) continue;
      byCommand[command] = (byCommand[command] ?? 0) + n / Math.max(1, exportedAt.size);
      totalCommands += n;
      perServer[i]! += n;
    }
  });
  const redisNodes = servers.map((node, i) => ({
    node,
    commandShare: perServer[i]! / Math.max(1, totalCommands),
    cpuSeconds: cpuAfter[i]! - cpuBefore[i]!,
  }));

  // Where the latency goes, from BullMQ's own event stream (the last ~10,000 events it keeps):
  // a job's first due time → its first activation (delay promotion and queueing), its last
  // activation → completed (reading, scoring, export), and how often a job was re-delayed because
  // some of its traces were not complete yet.
  const events: Array<[string, string[]]> = [];
  if (!memory) {
    const reader = options.cluster
      ? createRedisConnection({ clusterNodes: options.cluster.masters }, 'bullmq')
      : infoConnections[0]!;
    for (const shard of traceQueueShards(prefix, options.cluster?.shards ?? 1, !!options.cluster))
      events.push(
        ...((await reader.xrange(`${shard.prefix}:${shard.name}:events`, '-', '+')) as Array<
          [string, string[]]
        >),
      );
    if (reader !== infoConnections[0]) reader.disconnect();
  }
  for (const c of infoConnections) c.disconnect();
  const jobs = new Map<
    string,
    { delays: number; due?: number; firstActive?: number; active?: number; completed?: number }
  >();
  for (const [id, fields] of events) {
    const at = Number(id.split('-')[0]);
    const field = (name: string): string | undefined => fields[fields.indexOf(name) + 1];
    const jobId = field('jobId');
    if (!jobId) continue;
    const job = jobs.get(jobId) ?? { delays: 0 };
    const event = field('event');
    if (event === 'delayed') {
      job.delays++;
      job.due ??= Number(field('delay'));
    }
    if (event === 'active') {
      job.firstActive ??= at;
      job.active = at;
    }
    if (event === 'completed') job.completed = at;
    jobs.set(jobId, job);
  }
  const stages = { toActive: [] as number[], processing: [] as number[], delays: [] as number[] };
  for (const job of jobs.values()) {
    // Jobs whose first events were trimmed from the stream are left out.
    if (job.due === undefined || job.firstActive === undefined || job.completed === undefined)
      continue;
    stages.toActive.push(job.firstActive - job.due);
    stages.processing.push(job.completed - job.active!);
    stages.delays.push(job.delays);
  }
  const breakdown = memory
    ? undefined
    : {
        jobs: stages.toActive.length,
        dueToActiveMs: {
          p50: percentile(stages.toActive, 0.5),
          p99: percentile(stages.toActive, 0.99),
        },
        activeToCompletedMs: {
          p50: percentile(stages.processing, 0.5),
          p99: percentile(stages.processing, 0.99),
        },
        redelayedShare: stages.delays.filter(d => d > 1).length / Math.max(1, stages.delays.length),
      };

  for (const child of children) child.kill('SIGTERM');
  await Promise.all(
    children.map(c =>
      c.exitCode === null ? new Promise(r => c.once('exit', r)) : Promise.resolve(),
    ),
  );
  await sink.close();
  await redis.cleanup();

  const warmUp = (xs: readonly number[]): number => Math.min(60, Math.floor(xs.length / 4));
  const quarter = (xs: number[], which: 'first' | 'last'): number => {
    const n = Math.max(1, Math.floor(xs.length / 4));
    return median(which === 'first' ? xs.slice(0, n) : xs.slice(-n));
  };
  const scoredSpans = Math.max(1, exportedAt.size * SPANS_PER_TRACE);
  return {
    driver: memory ? 'memory' : 'bullmq',
    ...(memory && options.memoryThreads !== undefined && { memoryThreads: options.memoryThreads }),
    resultsWrite: options.resultsWrite ?? true,
    workers: memory ? 0 : options.workers,
    rate: options.rate ?? 0,
    seconds: load.seconds,
    connections,
    acceptedSpansPerSecond: load.spansAccepted / load.seconds,
    scoredSpansPerSecond: (exportedAt.size * SPANS_PER_TRACE) / ((lastExport - started) / 1000),
    tracesSent: sent,
    tracesScored: exportedAt.size,
    tracesExpired,
    rejected429: load.rejected429,
    rejected503: load.rejected503,
    errors: load.errors,
    latencyMs: latencyStats(latencies),
    steadyLatencyMs: latencyStats(steady),
    healthzMs: { polls: healthzMs.length, ...latencyStats(healthzMs) },
    slowest: exported
      .map(([, acceptedAt], i) => ({
        acceptedAtS: Math.round((acceptedAt - started) / 100) / 10,
        latencyMs: latencies[i]!,
      }))
      .sort((a, b) => b.latencyMs - a.latencyMs)
      .slice(0, 5),
    breakdown,
    heapMb: Object.fromEntries(
      [...heap].map(([role, xs]) => {
        const ext = external.get(role) ?? [];
        const seen = xs.filter(Number.isFinite);
        return [
          role,
          {
            peak: seen.length ? Math.max(...seen) : NaN,
            slopePerMinute: seen.length > 2 ? slopePerMinute(seen, warmUp(seen)) : NaN,
            externalPeak: Math.max(...ext.filter(Number.isFinite), 0),
          },
        ];
      }),
    ),
    rssMb: Object.fromEntries(
      [...rss].map(([role, xs]) => [
        role,
        {
          peak: Math.max(...xs),
          firstQuarter: quarter(xs, 'first'),
          lastQuarter: quarter(xs, 'last'),
          slopePerMinute: slopePerMinute(xs, warmUp(xs)),
        },
      ]),
    ),
    ...(!memory && {
      redisUsedMemoryMb: {
        peak: Math.max(...redisMemory),
        slopePerMinute: slopePerMinute(redisMemory, warmUp(redisMemory)),
      },
      redisCommandsPerTrace: { total: totalCommands / Math.max(1, exportedAt.size), byCommand },
      redisNodes,
      redisCpuMicrosPerSpan:
        (redisNodes.reduce((sum, n) => sum + n.cpuSeconds, 0) * 1e6) / scoredSpans,
    }),
    cpuMicrosPerSpan: Object.fromEntries(
      [...cpuAtEnd].map(([role, ms]) => [
        role,
        ((ms - (cpuAtStart.get(role) ?? 0)) * 1000) / scoredSpans,
      ]),
    ),
    ...(steal.length > 1 && { steal: stealOf(steal, started) }),
    gc: Object.fromEntries(
      [...new Set(roles.values())].map(role => [
        role,
        sumGcFigures(
          [...gcTallies].filter(([pid]) => roles.get(pid) === role).map(([, t]) => t.figures()),
        ),
      ]),
    ),
  };
}

/** CPU time (user + system, ms) each process has used so far, by role. */
async function cpuTimes(roles: ReadonlyMap<number, string>): Promise<Map<string, number>> {
  const stats = await pidusage([...roles.keys()]);
  return new Map(Object.entries(stats).map(([pid, stat]) => [roles.get(Number(pid))!, stat.ctime]));
}

/** This machine's CPU times from the `cpu` line of /proc/stat: steal and the total, in ticks. */
function readCpuTimes(): { steal: number; total: number } | undefined {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!;
    const ticks = line.trim().split(/\s+/).slice(1, 9).map(Number);
    return { steal: ticks[7] ?? 0, total: ticks.reduce((a, b) => a + b, 0) };
  } catch {
    return undefined;
  }
}

function stealOf(
  samples: Array<{ at: number; steal: number; total: number }>,
  started: number,
): NonNullable<LoadResult['steal']> {
  // From the sample just before the run started (the others are the processes starting).
  const from = Math.max(0, samples.findIndex(x => x.at >= started) - 1);
  samples = samples.slice(from);
  const first = samples[0]!;
  const last = samples[samples.length - 1]!;
  let worst = { share: 0, at: first.at };
  for (let i = 1; i < samples.length; i++) {
    const total = samples[i]!.total - samples[i - 1]!.total;
    const share = total > 0 ? (samples[i]!.steal - samples[i - 1]!.steal) / total : 0;
    if (share > worst.share) worst = { share, at: samples[i]!.at };
  }
  return {
    share: (last.steal - first.steal) / Math.max(1, last.total - first.total),
    worstSecondShare: worst.share,
    worstAtS: Math.round((worst.at - started) / 1000),
  };
}

/** `used_cpu_sys` + `used_cpu_user` of `INFO cpu`, in seconds. */
function parseCpuSeconds(info: string): number {
  const field = (name: string): number =>
    Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)?.[1] ?? 0);
  return field('used_cpu_sys') + field('used_cpu_user');
}

/** `cmdstat_<name>:calls=N,…` lines of `INFO commandstats`, as calls by command name. */
function parseCommandStats(info: string): Map<string, number> {
  const calls = new Map<string, number>();
  for (const match of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm))
    calls.set(match[1]!, Number(match[2]));
  return calls;
}

/**
 * Redis memory per buffered trace: `used_memory` before and after buffering `requests` × 512
 * spans (20-span traces) through the BullMQ sink with no worker (span lists, trace hashes and one
 * delayed BullMQ job per request), divided by the traces.
 */
export async function redisBytesPerTrace(
  requests = 100,
  cluster?: { masters: string[]; shards: number },
): Promise<{ traces: number; bytesPerTrace: number }> {
  const prefix = testPrefix().replace('test', 'bench');
  const redis = cluster
    ? {
        commands: createRedisConnection({ clusterNodes: cluster.masters }, 'commands'),
        queue: createRedisConnection({ clusterNodes: cluster.masters }, 'bullmq'),
        cleanup: () => Promise.resolve(),
      }
    : (() => {
        const r = redisFor(prefix);
        return { commands: r.commands, queue: r.bullmq(), cleanup: r.cleanup };
      })();
  const sink = createBullmqTraceSink({
    ...bullmqTraceOptions(DEFAULTS),
    ...bullmqSinkLimits(DEFAULTS),
    prefix,
    policy: { settleMs: 600_000, maxWaitMs: 600_000 },
    redis: redis.commands,
    queueConnection: redis.queue,
    maxQueuedTraces: 1_000_000,
    shards: cluster?.shards ?? 1,
  });
  const batches = agentSpans(requests, 11).map(
    b => decodeOtlpProtobuf(ProtobufTraceSerializer.serializeRequest(b)!).spans,
  );
  const traces = new Set(batches.flat().map(s => s.traceId)).size;
  const infoConnections = (cluster?.masters.map(node => `redis://${node}`) ?? [REDIS_URL]).map(
    url => new Redis(url),
  );
  const used = async (): Promise<number> =>
    (await Promise.all(infoConnections.map(c => c.info('memory')))).reduce(
      (sum, info) => sum + Number(/used_memory:(\d+)/.exec(info)?.[1] ?? 0),
      0,
    );
  await sink.accept([]); // connects
  const before = await used();
  for (const batch of batches) await sink.accept(batch);
  const after = await used();
  await sink.close();
  for (const c of infoConnections) c.disconnect();
  if (cluster) {
    redis.commands.disconnect();
    redis.queue.disconnect();
  }
  await redis.cleanup();
  return { traces, bytesPerTrace: (after - before) / traces };
}
