import { SPANS_PER_TRACE, type LoadResult } from './load-bench.js';
import { fmt } from './measure.js';
import { sumGcFigures } from './gc-trace.js';

/** The hypervisor's steal over a load run, for telling a noisy host from a slow spanscore. */
export function stealLine(r: LoadResult): string {
  return r.steal
    ? `CPU steal ${(r.steal.share * 100).toFixed(1)}% of the run, worst second ${(r.steal.worstSecondShare * 100).toFixed(0)}% at ${r.steal.worstAtS} s`
    : 'CPU steal not known (no /proc/stat)';
}

/** A run's name in the report: loop, rate, driver, workers. */
export function runName(r: LoadResult): string {
  const who =
    r.driver === 'memory'
      ? `memory driver${r.memoryThreads === 2 ? ', two threads' : ''}`
      : `${r.workers} worker${r.workers > 1 ? 's' : ''}`;
  const store = r.resultsWrite === false ? ', results store off' : '';
  return r.rate > 0
    ? `open loop ${fmt(r.rate)} spans/s, ${who}${store}`
    : `closed loop, ${who}${store}`;
}

/**
 * What the results store costs, from two closed-loop runs alike but for it: its share of the CPU
 * per scored span (with − without, over with) and of throughput (the spans/s it takes away, over
 * the spans/s without it). Either is negative when the run with it happened to do better.
 */
export function resultsStoreShare(
  withStore: CpuPerMillionSpans,
  withoutStore: CpuPerMillionSpans,
): { cpu: number; throughput: number } {
  return {
    cpu: (withStore.total - withoutStore.total) / withStore.total,
    throughput:
      (withoutStore.scoredSpansPerSecond - withStore.scoredSpansPerSecond) /
      withoutStore.scoredSpansPerSecond,
  };
}

/** CPU seconds per million scored spans of one run, by part, and in all. */
export interface CpuPerMillionSpans {
  run: string;
  scoredSpansPerSecond: number;
  receiver: number;
  workers: number;
  redis: number | null;
  total: number;
}

/** Splits a run's CPU per scored span (µs, i.e. CPU seconds per million spans) by part. */
export function cpuPerMillionSpans(r: LoadResult): CpuPerMillionSpans {
  const parts = Object.entries(r.cpuMicrosPerSpan);
  const sum = (pick: (role: string) => boolean) =>
    parts.filter(([role]) => pick(role)).reduce((a, [, us]) => a + us, 0);
  const receiver = sum(role => role === 'receiver' || role === 'serve');
  const workers = sum(role => role.startsWith('worker'));
  const redis = r.redisCpuMicrosPerSpan ?? null;
  return {
    run: runName(r),
    scoredSpansPerSecond: r.scoredSpansPerSecond,
    receiver,
    workers,
    redis,
    total: receiver + workers + (redis ?? 0),
  };
}

/** Bytes V8 promoted to the old generation per scored span over a run, every process summed (0 without figures). */
export function promotedBytesPerSpan(r: LoadResult): number {
  if (!r.gc) return 0;
  return (
    sumGcFigures(Object.values(r.gc)).promotedBytes / Math.max(1, r.tracesScored * SPANS_PER_TRACE)
  );
}

/**
 * What V8's collector did per scored trace in each closed-loop run, all spanscore processes
 * together (`LoadResult.gc`): bytes promoted to the old generation per span (what lived through two
 * young collections), full collections and their concurrent marking (CPU on V8's helper threads),
 * and the time JavaScript stood stopped. Promotion and the count of collections follow what a span
 * holds and for how long, which a slower host changes little (in a closed loop a span's time in
 * the buffer and the time between young collections both scale with the rate); marking and pauses
 * are time, and move with the host like the CPU figures.
 */
export function gcLines(closed: readonly LoadResult[]): string[] {
  const withGc = closed.filter(r => r.gc && Object.values(r.gc).some(f => f.lines > 0));
  if (!withGc.length) return [];
  const lines = [
    '',
    '  Garbage collection per scored trace (closed loop; every spanscore process and thread, from --trace-gc-nvp)',
    '  run                                            promoted B/span  full GCs/1k traces  marking ms/1k traces  scavenges/1k traces  pauses ms/1k traces',
  ];
  for (const r of withGc) {
    const f = sumGcFigures(Object.values(r.gc!));
    const traces = Math.max(1, r.tracesScored);
    const per1k = (x: number): string => ((x * 1000) / traces).toFixed(1);
    lines.push(
      `  ${runName(r).padEnd(46)} ${promotedBytesPerSpan(r).toFixed(0).padStart(15)} ${per1k(f.fullCollections).padStart(19)} ${per1k(f.backgroundMarkMs).padStart(21)} ${per1k(f.scavenges).padStart(20)} ${per1k(f.pauseMs).padStart(20)}`,
    );
  }
  return lines;
}

/**
 * The load report's lines, every figure from the runs given, or the line says why it is missing:
 * throughput and latency per run; CPU seconds per million scored spans of the closed-loop runs
 * (what the machine pays per span) by receiver, workers and Redis; latency by stage where BullMQ's
 * event stream holds whole jobs; latency tails and CPU steal; Redis commands per trace; the goals.
 */
export function loadReport(runs: readonly LoadResult[]): {
  lines: string[];
  cpu: CpuPerMillionSpans[];
  /** When the runs include the 2-worker closed loop with and without the results store. */
  resultsStoreShare?: { cpu: number; throughput: number };
  /** Redis commands per scored trace in the 2-worker closed loop, when the runs include it. */
  redisCommandsPerTrace?: number;
} {
  const lines: string[] = [
    '',
    `End to end under load (receiver, workers and load generator as separate processes on the local Redis, or one \`serve\` with the memory driver; 512-span OTLP/protobuf requests of 20-span traces; settle window 200 ms)`,
    '  run                                            accepted spans/s  scored spans/s   p50 ms   p99 ms   429s  peak RSS MB',
  ];
  for (const r of runs) {
    const rss = Object.entries(r.rssMb)
      .map(([role, v]) => `${role} ${v.peak.toFixed(0)}`)
      .join(', ');
    // A closed loop keeps a backlog on purpose: its latency measures the queue, not spanscore.
    const latency =
      r.rate > 0
        ? `${fmt(r.latencyMs.p50).padStart(8)} ${fmt(r.latencyMs.p99).padStart(8)}`
        : `${'–'.padStart(8)} ${'–'.padStart(8)}`;
    lines.push(
      `  ${`${runName(r)}, ${r.seconds.toFixed(0)} s`.padEnd(46)} ${fmt(r.acceptedSpansPerSecond).padStart(16)} ${fmt(r.scoredSpansPerSecond).padStart(15)} ${latency} ${String(r.rejected429).padStart(6)}  ${rss}`,
    );
  }
  lines.push(
    '  (latency: ready → exported; not given for closed-loop runs, whose backlog is the point)',
    '',
    '  Accepted means scored: traces accepted, requests refused (429/503 with Retry-After), traces scored, expired, and still queued when the report was taken (60 s after the load)',
    '  run                                             accepted   refused    scored   expired   queued',
  );
  for (const r of runs)
    lines.push(
      `  ${runName(r).padEnd(46)} ${fmt(r.tracesSent).padStart(9)} ${fmt(r.rejected429 + r.rejected503).padStart(9)} ${fmt(r.tracesScored).padStart(9)} ${fmt(r.tracesExpired ?? 0).padStart(9)} ${fmt(Math.max(0, r.tracesSent - r.tracesScored - (r.tracesExpired ?? 0))).padStart(8)}`,
    );

  const closed = runs.filter(r => r.rate === 0);
  const cpu = closed.map(cpuPerMillionSpans);
  lines.push(
    '',
    "  CPU seconds per million scored spans (closed loop, from each process's CPU time over the run)",
    '  run                                            receiver   workers     Redis     total   scored spans/s',
  );
  for (const c of cpu)
    lines.push(
      `  ${c.run.padEnd(46)} ${c.receiver.toFixed(1).padStart(8)} ${c.workers.toFixed(1).padStart(9)} ${(c.redis === null ? 'none' : c.redis.toFixed(1)).padStart(9)} ${c.total.toFixed(1).padStart(9)} ${fmt(c.scoredSpansPerSecond).padStart(16)}`,
    );
  lines.push('  (memory driver: receiver and workers are one process, under "receiver")');
  lines.push(...gcLines(closed));

  lines.push('');
  for (const r of runs) {
    if (!r.breakdown) continue; // the memory driver has no BullMQ
    lines.push(
      r.breakdown.jobs > 0
        ? `  latency by stage (${runName(r)}, last ${fmt(r.breakdown.jobs)} jobs): due → job active p50/p99 ${fmt(r.breakdown.dueToActiveMs.p50)}/${fmt(r.breakdown.dueToActiveMs.p99)} ms, active → completed ${fmt(r.breakdown.activeToCompletedMs.p50)}/${fmt(r.breakdown.activeToCompletedMs.p99)} ms, re-delayed ${(r.breakdown.redelayedShare * 100).toFixed(0)}%`
        : `  latency by stage (${runName(r)}): not measured — no job's whole life (added, active, completed) is among the last 10,000 events BullMQ's event stream keeps${r.rate === 0 ? ', as in a closed loop, whose backlog outlasts them' : ''}`,
    );
  }
  for (const r of runs)
    lines.push(
      r.rate > 0
        ? `  ${runName(r)}: ${fmt(r.latencyMs.overOneSecond)} of ${fmt(r.tracesScored)} traces over 1 s; ${stealLine(r)}`
        : `  ${runName(r)}: ${stealLine(r)}`,
    );
  for (const r of runs) {
    if (!r.redisCommandsPerTrace) continue;
    const top = Object.entries(r.redisCommandsPerTrace.byCommand)
      .sort((a, b) => b[1] - a[1])
      .slice(0, 8)
      .map(([command, n]) => `${command} ${n.toFixed(1)}`)
      .join(', ');
    lines.push(
      `  Redis commands per scored trace (${runName(r)}; scripts' own commands included): ${r.redisCommandsPerTrace.total.toFixed(1)} — ${top}`,
    );
  }

  /** The 2-worker closed loop with the results store written or not. */
  const closed2With = (resultsWrite: boolean): LoadResult | undefined =>
    runs.find(
      r =>
        r.driver === 'bullmq' && r.rate === 0 && r.workers === 2 && r.resultsWrite === resultsWrite,
    );
  const closed2 = closed2With(true);
  const open = runs.find(r => r.driver === 'bullmq' && r.rate > 0);
  if (closed2 && open)
    lines.push(
      `  goal ≥ 40,000 scored spans/s (closed loop, 2 workers): ${closed2.scoredSpansPerSecond >= 40_000 ? 'met' : 'NOT met'} (${fmt(closed2.scoredSpansPerSecond)}); p50/p99 ready → exported ≤ 50/250 ms (open loop): ${open.latencyMs.p50 <= 50 && open.latencyMs.p99 <= 250 ? 'met' : 'NOT met'} over the whole run (${fmt(open.latencyMs.p50)}/${fmt(open.latencyMs.p99)} ms), ${open.steadyLatencyMs.p50 <= 50 && open.steadyLatencyMs.p99 <= 250 ? 'met' : 'NOT met'} after its first 5 s (${fmt(open.steadyLatencyMs.p50)}/${fmt(open.steadyLatencyMs.p99)} ms)`,
    );
  const withoutStore = closed2With(false);
  const share =
    closed2 && withoutStore
      ? resultsStoreShare(cpuPerMillionSpans(closed2), cpuPerMillionSpans(withoutStore))
      : undefined;
  if (share) {
    lines.push(
      `  the results store's share (closed loop, 2 workers, with and without it): ${(share.cpu * 100).toFixed(1)}% of the CPU per scored span, ${(share.throughput * 100).toFixed(1)}% of throughput; goal ≤ 5% of throughput: ${share.throughput <= 0.05 ? 'met' : 'NOT met'}`,
    );
  }
  const memClosed = runs.find(r => r.driver === 'memory' && r.rate === 0);
  const memOpen = runs.find(r => r.driver === 'memory' && r.rate > 0);
  if (memClosed && memOpen) {
    const memPeak = Math.max(
      ...[memClosed, memOpen].flatMap(r => Object.values(r.rssMb).map(v => v.peak)),
    );
    const healthz = memClosed.healthzMs;
    lines.push(
      `  memory driver goals (issue 60): ≥ 60,000 scored spans/s closed loop ${memClosed.scoredSpansPerSecond >= 60_000 ? 'met' : 'NOT met'} (${fmt(memClosed.scoredSpansPerSecond)}, ${memClosed.rejected429} requests refused); RSS ≤ 300 MB under the default bounds (serve and the service it starts) ${memPeak <= 300 ? 'met' : 'NOT met'} (peak ${memPeak.toFixed(0)} MB); p99 ≤ 250 ms in open loop at half of it ${memOpen.latencyMs.p99 <= 250 ? 'met' : 'NOT met'} (${fmt(memOpen.latencyMs.p99)} ms); /healthz under 200 ms through the closed loop ${healthz.max < 200 ? 'met' : 'NOT met'} (p50/p99/max ${fmt(healthz.p50)}/${fmt(healthz.p99)}/${fmt(healthz.max)} ms over ${healthz.polls} polls)`,
    );
  }
  const bullmqRuns = runs.filter(r => r.driver === 'bullmq');
  const peak = Math.max(...bullmqRuns.flatMap(r => Object.values(r.rssMb).map(v => v.peak)));
  if (bullmqRuns.length)
    lines.push(
      `  goal < 256 MB RSS per process (bullmq driver): ${peak < 256 ? 'met' : 'NOT met'} (peak ${peak.toFixed(0)} MB); RSS first → last quarter of each run: ${runs
        .map(r =>
          Object.entries(r.rssMb)
            .map(([role, v]) => `${role} ${v.firstQuarter.toFixed(0)}→${v.lastQuarter.toFixed(0)}`)
            .join(', '),
        )
        .join(' | ')}`,
    );
  const commands = closed2?.redisCommandsPerTrace?.total;
  return {
    lines,
    cpu,
    ...(share && { resultsStoreShare: share }),
    ...(commands !== undefined && { redisCommandsPerTrace: commands }),
  };
}
