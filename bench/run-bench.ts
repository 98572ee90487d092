/**
 * `npm run bench`: measures, in one run, deterministic scoring against `@mastra/evals`' code scorer
 * on the same 10,000 generated cases, and OTLP trace reading (protobuf and JSON) in spans/s, with
 * JSON.parse of the same payloads as the baseline. Every figure is the median of several rounds;
 * ratios compare figures measured side by side here. Writes bench/results/latest.json.
 *
 * Then the load report (bench/load-bench.ts): the receiver, 1 or 2 workers and a load generator as
 * separate processes on the local Redis for 60 s each, throughput, ready → exported latency, RSS
 * per process and Redis memory per trace.
 *
 * Also `spanscore compare` on two run summaries of 1,000 test cases × 3 scorers, per format,
 * against JSON.parse of the same files.
 *
 * Options: --rounds N (default 5), --load-seconds N (default 60), --no-load, --profile (CPU
 * profiles of the open-loop run's processes, summarized).
 *
 * `--soak` runs the soak test instead (about 12 minutes, not in CI): a closed-loop run with 2
 * workers finds the throughput, then an open-loop run at half of it for `--soak-minutes` (default
 * 10) checks that nothing is lost and that the RSS of every process and Redis's `used_memory` stay
 * flat: it prints their least-squares slopes in MB per minute after the first minute. Writes
 * bench/results/soak.json. `--soak-rate N` soaks at N spans/s instead and skips the closed-loop run
 * (to repeat a soak at the same rate on a machine whose throughput varies from run to run).
 * `--soak-retention-hours H` keeps run records H hours (default 1/60: a minute).
 *
 * `--budgets` measures only the figures no host can blur (bench/budget-figures.ts), on this
 * tree's built code, each `--budget-runs` times (default 5) in a process of its own: V8 heap bytes
 * allocated per scored span and bytes stored per trace (memory and Redis results stores), bytes
 * held per buffered span; writes bench/results/budgets.json. The full run measures them too, and
 * prints them at its end with the load runs' Redis commands per trace; so does the A/B, per side.
 *
 * Beside them, machine instructions per scored span (bench/instructions-per-span.ts): the same
 * workload as the allocation figure, counted by valgrind's callgrind, `--instruction-runs` times
 * (default 3, their median; about a minute and a half a run; `--no-instructions` skips it). The A/B counts each side,
 * the two side by side, and prints B / A: the CPU figure the host cannot blur. With
 * `--instruction-store redis` (or `redis-layout2`) the counted pass writes its results to Redis
 * through the Redis store, as a `bullmq` worker does (ioredis's work counted too; `InstructionStore`);
 * the default is the memory store, the figure the budget tests hold.
 *
 * `--instruction-profile` runs one count on this tree's build with callgrind's profile kept, and
 * prints where the pass's instructions went per scored span: by stage (the build's `src/` folders,
 * packages, V8's collector, compiler, JSON and builtins) and by function, JavaScript named from
 * V8's map of its compiled code (bench/instruction-profile.ts). Writes
 * bench/results/instructions.callgrind and its `.map`.
 *
 * `--promoted-profile` runs closed loops of the bullmq driver (2 workers) and the memory driver (one
 * and two threads) for `--load-seconds` (default 30) with a sampling heap profile in every spanscore
 * isolate that keeps what full collections took, and prints where the bytes promoted to V8's old
 * generation were allocated (bench/promoted-sites.ts): which structure holds a trace's objects
 * long enough for young collections to keep them.
 *
 * `--burst` runs only the burst (bench/burst-bench.ts): `/healthz` while the embedded default takes
 * 100,000 traces at once; the full run ends with it.
 *
 * `--ab REV` runs the cost A/B instead (bench/ab-cost.ts): REV built in a temporary worktree
 * against this tree, closed loop with 2 workers, `--ab-rounds` (default 3) alternating pairs of
 * `--load-seconds` (default 30) runs; CPU seconds per million scored spans by part, Redis
 * commands per trace, throughput, and the ratio. Writes bench/results/ab.json, and the same as
 * the `ab` field of bench/results/latest.json when a full run wrote one. `--ab-sessions`: the
 * traffic's traces carry session ids, and this tree's suite has a session test case (sessions
 * read and looked up on every trace; see `LoadOptions.sessions`). `--ab-session-health`: the same
 * traffic, and this tree runs `toolHealth.sessions` on it (every conversation held and scored). `--ab-backend-ms N`: the
 * evaluation-span backend of both sides answers each export after N ms (a slow tracing backend).
 * `--ab-layout2`: this tree runs with `results.layout: 2` (each result written once).
 */
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  writeFileSync,
} from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { parseArgs } from 'node:util';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadBench, redisBytesPerTrace, type LoadResult } from './load-bench.js';
import { loadReport, promotedBytesPerSpan, runName, stealLine } from './load-report.js';
import { promotedSites } from './promoted-sites.js';
import { summarizeProfile } from './summarize-profile.js';
import { abCost } from './ab-cost.js';
import { burstBench, type BurstResult } from './burst-bench.js';
import { compareBench } from './compare-bench.js';
import { endToEndBench } from './end-to-end-bench.js';
import { inspectBench } from './inspect-bench.js';
import { logsBench } from './logs-bench.js';
import type { readingBench } from './reading-bench.js';
import { scoringBench } from './scoring-bench.js';
import { fmt } from './measure.js';
import { budgetFigures, budgetLines, spreadText, type BudgetFigures } from './budget-figures.js';
import type { InstructionRow } from './instruction-profile.js';
import {
  countInstructions,
  INSTRUCTION_RUNS,
  instructionsPerSpan,
  instructionsUnavailable,
  type InstructionStore,
} from './instructions-per-span.js';
import { THIS_TREE } from './side-modules.js';

const { values: args } = parseArgs({
  options: {
    rounds: { type: 'string' },
    'load-seconds': { type: 'string' },
    'no-load': { type: 'boolean' },
    profile: { type: 'boolean' },
    soak: { type: 'boolean' },
    'soak-minutes': { type: 'string' },
    'soak-rate': { type: 'string' },
    'soak-retention-hours': { type: 'string' },
    ab: { type: 'string' },
    'ab-rounds': { type: 'string' },
    'ab-sessions': { type: 'boolean' },
    'ab-session-health': { type: 'boolean' },
    'ab-layout2': { type: 'boolean' },
    'ab-backend-ms': { type: 'string' },
    burst: { type: 'boolean' },
    budgets: { type: 'boolean' },
    'budget-runs': { type: 'string' },
    'instruction-runs': { type: 'string' },
    'no-instructions': { type: 'boolean' },
    'instruction-profile': { type: 'boolean' },
    'instruction-store': { type: 'string' },
    'promoted-profile': { type: 'boolean' },
  },
});
/** `--name N`: a positive number, `undefined` when not given; anything else stops the bench. */
function positiveArg(name: keyof typeof args): number | undefined {
  const given = args[name];
  if (given === undefined) return undefined;
  const n = Number(given);
  if (!(n > 0) || !Number.isFinite(n))
    throw new Error(`--${name} must be a positive number, got ${String(given)}`);
  return n;
}
const rounds = positiveArg('rounds') ?? 5;
const budgetRuns = positiveArg('budget-runs') ?? 5;
/** Runs of the instruction count (per side in an A/B); 0 with `--no-instructions`. */
const instructionRuns = args['no-instructions']
  ? 0
  : (positiveArg('instruction-runs') ?? INSTRUCTION_RUNS);
/** The results store of the counted pass (`--instruction-store`). */
const instructionStore = ((): InstructionStore => {
  const given = args['instruction-store'] ?? 'memory';
  if (given !== 'memory' && given !== 'redis' && given !== 'redis-layout2')
    throw new Error(`--instruction-store must be memory, redis or redis-layout2, got ${given}`);
  return given;
})();
/** Counts instructions per scored span on this tree's build into `budgets` (`instructionsPerSpan`). */
async function addInstructions(budgets: BudgetFigures): Promise<void> {
  if (instructionRuns === 0) return;
  console.log(
    `counting instructions per scored span under callgrind (${instructionRuns} runs, ${instructionStore} results store)`,
  );
  const counted = await instructionsPerSpan([THIS_TREE], instructionRuns, instructionStore);
  if (counted.spreads[0]) {
    budgets.instructionsPerSpan = counted.spreads[0];
    budgets.instructionStore = instructionStore;
  }
  if (counted.withoutCollector[0])
    budgets.instructionsWithoutCollectorPerSpan = counted.withoutCollector[0];
  budgets.failures.push(...counted.failures);
}
let built = false;
/** Builds dist/ once: the load's processes run the built CLI, the budget figures its modules. */
function buildDist(why: string): void {
  if (built) return;
  console.log(`building dist/ for ${why}`);
  execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
  built = true;
}
const BUDGETS_TITLE =
  'Budgets no host can blur (counted, not timed; median (min–max) of runs in processes of their own)';

if (args.budgets) {
  buildDist('the budget figures (they run its modules)');
  const budgets = budgetFigures(undefined, budgetRuns);
  await addInstructions(budgets);
  console.log(`\n${BUDGETS_TITLE}`);
  for (const line of budgetLines(budgets)) console.log(line);
  mkdirSync(new URL('results/', import.meta.url), { recursive: true });
  writeFileSync(
    new URL('results/budgets.json', import.meta.url),
    `${JSON.stringify({ date: new Date().toISOString(), node: process.version, runs: budgetRuns, ...budgets }, null, 2)}\n`,
  );
  console.log('\nwrote bench/results/budgets.json');
  process.exit(budgets.failures.length === 0 ? 0 : 1);
}
const ratio = (a: number, b: number): string => `${(a / b).toFixed(1)}×`;

if (args['instruction-profile']) {
  buildDist('the instruction profile (it runs its modules)');
  const unavailable = instructionsUnavailable();
  if (unavailable) throw new Error(`instruction profile: ${unavailable}`);
  mkdirSync(new URL('results/', import.meta.url), { recursive: true });
  const file = fileURLToPath(new URL('results/instructions.callgrind', import.meta.url));
  console.log(
    `counting instructions per scored span under callgrind (${instructionStore} results store), profile kept`,
  );
  const { perSpan, withoutCollectorPerSpan, profile } = await countInstructions(
    THIS_TREE,
    { profile: file },
    instructionStore,
  );
  const row = (r: InstructionRow): string =>
    `${fmt(r.perSpan).padStart(8)}  ${(100 * r.share).toFixed(1).padStart(5)}%  ${r.name}`;
  console.log(
    `\n${fmt(perSpan)} instructions per scored span (${fmt(withoutCollectorPerSpan)} without V8's garbage collector). By stage (self, inlined code in its caller's):`,
  );
  for (const r of profile!.stages.slice(0, 16)) console.log(row(r));
  console.log('\nBy function, top 40:');
  for (const r of profile!.functions.slice(0, 40)) console.log(row(r));
  console.log(`\nwrote ${file} and its .map (callgrind_annotate reads the first)`);
  process.exit(0);
}

if (args['promoted-profile']) {
  buildDist('the promoted-bytes profile (the processes run the built CLI)');
  const seconds = positiveArg('load-seconds') ?? 30;
  for (const options of [
    { driver: 'bullmq' as const, workers: 2, seconds },
    { driver: 'memory' as const, workers: 0, seconds },
    { driver: 'memory' as const, workers: 0, seconds, memoryThreads: 2 as const },
  ]) {
    const dir = mkdtempSync(join(tmpdir(), 'spanscore-promoted-'));
    const run = await loadBench({ ...options, promotedProfileDir: dir });
    console.log(
      `\n${runName(run)}, ${seconds} s: ${fmt(run.scoredSpansPerSecond)} scored spans/s, ${promotedBytesPerSpan(run).toFixed(0)} bytes promoted to V8's old generation per scored span (--trace-gc-nvp). Where they were allocated, per isolate, top 12 (${dir}):`,
    );
    for (const file of readdirSync(dir).filter(f => f.endsWith('.heapprofile'))) {
      const { totalBytes, sites } = promotedSites(readFileSync(join(dir, file), 'utf8'), 12);
      console.log(`  ${file}: ${(totalBytes / 1e6).toFixed(1)} MB sampled`);
      for (const s of sites)
        console.log(`    ${(s.share * 100).toFixed(1).padStart(5)}%  ${s.site}`);
    }
  }
  process.exit(0);
}

if (args.soak) {
  const minutes = positiveArg('soak-minutes') ?? 10;
  const probeSeconds = positiveArg('load-seconds') ?? 60;
  const fixedRate = positiveArg('soak-rate');
  // Run records are kept a minute, not the default day: at this rate a day's records alone grow
  // Redis by about 2 kB per trace for 24 h (see the capacity plan in docs/operations.md), and the soak looks
  // for anything else that grows.
  const resultsRetentionHours = positiveArg('soak-retention-hours') ?? 1 / 60;
  console.log('building dist/ for the soak test (the processes run the built CLI)');
  execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
  let rate = fixedRate ?? 0;
  let probe: LoadResult | undefined;
  if (fixedRate === undefined) {
    probe = await loadBench({ workers: 2, seconds: probeSeconds });
    rate = Math.round(probe.scoredSpansPerSecond / 2 / 512) * 512;
  }
  console.log(
    probe
      ? `soak: closed loop, 2 workers: ${fmt(probe.scoredSpansPerSecond)} scored spans/s; soaking at ${fmt(rate)} spans/s for ${minutes} min`
      : `soak: soaking at ${fmt(rate)} spans/s (--soak-rate) for ${minutes} min`,
  );
  const soak = await loadBench({ workers: 2, seconds: minutes * 60, rate, resultsRetentionHours });
  const lost = soak.tracesSent - soak.tracesScored;
  console.log(
    `soak: ${fmt(soak.tracesSent)} traces sent, ${fmt(soak.tracesScored)} scored, ${lost} lost, ${soak.errors} errors, ${soak.rejected429 + soak.rejected503} refused (429/503); ready → exported p50/p99 ${fmt(soak.latencyMs.p50)}/${fmt(soak.latencyMs.p99)} ms, max ${fmt(soak.latencyMs.max)} ms, ${fmt(soak.latencyMs.overOneSecond)} traces over 1 s`,
  );
  console.log(
    `  slowest (accepted at s: ms): ${soak.slowest.map(t => `${t.acceptedAtS}: ${fmt(t.latencyMs)}`).join(', ')}`,
  );
  for (const [role, v] of Object.entries(soak.rssMb))
    console.log(
      `  RSS ${role.padEnd(9)} ${v.firstQuarter.toFixed(0)} → ${v.lastQuarter.toFixed(0)} MB (first → last quarter), peak ${v.peak.toFixed(0)} MB, slope ${v.slopePerMinute.toFixed(2)} MB/min`,
    );
  for (const [role, v] of Object.entries(soak.heapMb))
    console.log(
      Number.isFinite(v.peak)
        ? `  heap ${role.padEnd(9)} peak ${v.peak.toFixed(0)} MB used, slope ${v.slopePerMinute.toFixed(2)} MB/min; external (Buffers) peak ${v.externalPeak.toFixed(0)} MB (from its /metrics)`
        : `  heap ${role.padEnd(9)} not known: its /metrics did not answer`,
    );
  console.log(`  ${stealLine(soak)}`);
  console.log(
    `  Redis used_memory peak ${soak.redisUsedMemoryMb!.peak.toFixed(1)} MB, slope ${soak.redisUsedMemoryMb!.slopePerMinute.toFixed(3)} MB/min`,
  );
  mkdirSync(new URL('results/', import.meta.url), { recursive: true });
  writeFileSync(
    new URL('results/soak.json', import.meta.url),
    `${JSON.stringify({ date: new Date().toISOString(), node: process.version, probe, rate, soak }, null, 2)}\n`,
  );
  console.log('\nwrote bench/results/soak.json');
  process.exit(lost === 0 && soak.errors === 0 ? 0 : 1);
}

const printBurst = (b: BurstResult): void =>
  console.log(
    `\n/healthz through a burst of ${fmt(b.traces)} one-span traces (serve, memory driver, default bounds; 10 requests, ${b.refusals} refused and sent again, all handled in ${b.seconds.toFixed(1)} s): p50 ${b.healthz.p50Ms.toFixed(0)} ms, p99 ${b.healthz.p99Ms.toFixed(0)} ms, max ${b.healthz.maxMs.toFixed(0)} ms over ${b.healthz.polls} polls; goal p99 ≤ 200 ms: ${b.healthz.p99Ms <= 200 ? 'met' : 'NOT met'}`,
  );

if (args.burst) {
  console.log('building dist/ for the burst (serve runs the built CLI)');
  execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
  const burst = await burstBench();
  printBurst(burst);
  mkdirSync(new URL('results/', import.meta.url), { recursive: true });
  writeFileSync(
    new URL('results/burst.json', import.meta.url),
    `${JSON.stringify({ date: new Date().toISOString(), node: process.version, ...burst }, null, 2)}\n`,
  );
  process.exit(0);
}

if (args.ab) {
  const abRounds = positiveArg('ab-rounds') ?? 3;
  const seconds = positiveArg('load-seconds') ?? 30;
  console.log(`building dist/ for the A/B (this tree), then ${args.ab} in a temporary worktree`);
  execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
  const backendDelayMs = positiveArg('ab-backend-ms');
  const ab = await abCost(args.ab, abRounds, seconds, {
    sessions: args['ab-session-health'] === true ? 'health' : args['ab-sessions'] === true,
    budgetRuns,
    layout2: args['ab-layout2'] === true,
    instructionRuns,
    instructionStore,
    ...(backendDelayMs !== undefined && { backendDelayMs }),
  });
  console.log(
    `\nCost per scored span, ${args.ab} (A) against this tree (B): closed loop, bullmq driver, 2 workers, ${seconds} s runs, ${abRounds} alternating rounds, medians${args['ab-session-health'] ? '; every trace with a session id, and toolHealth.sessions on in B' : args['ab-sessions'] ? '; every trace with a session id, and a session test case in B' : ''}${backendDelayMs ? `; the tracing backend answers each export after ${backendDelayMs} ms` : ''}${args['ab-layout2'] ? '; B with results.layout: 2' : ''}`,
  );
  console.log(
    '  side                  receiver   workers     Redis     total  (CPU s per million scored spans)  Redis cmds/trace  scored spans/s',
  );
  for (const s of [ab.baseline, ab.candidate])
    console.log(
      `  ${`${s === ab.baseline ? 'A' : 'B'} ${s.label}`.padEnd(20)} ${s.cpu.receiver.toFixed(1).padStart(9)} ${s.cpu.workers.toFixed(1).padStart(9)} ${s.cpu.redis.toFixed(1).padStart(9)} ${s.cpu.total.toFixed(1).padStart(9)} ${''.padStart(33)} ${s.redisCommandsPerTrace.toFixed(1).padStart(17)} ${fmt(s.scoredSpansPerSecond).padStart(15)}`,
    );
  const part = (b: number, a: number): string => (a > 0 ? `${(b / a).toFixed(2)}×` : 'n/a');
  console.log(
    `  B / A per part: receiver ${part(ab.candidate.cpu.receiver, ab.baseline.cpu.receiver)}, workers ${part(ab.candidate.cpu.workers, ab.baseline.cpu.workers)}, Redis ${part(ab.candidate.cpu.redis, ab.baseline.cpu.redis)}, Redis commands per trace ${part(ab.candidate.redisCommandsPerTrace, ab.baseline.redisCommandsPerTrace)}, scored spans/s ${part(ab.candidate.scoredSpansPerSecond, ab.baseline.scoredSpansPerSecond)}, bytes promoted to V8's old generation per span ${ab.baseline.promotedBytesPerSpan.toFixed(0)} → ${ab.candidate.promotedBytesPerSpan.toFixed(0)} (${part(ab.candidate.promotedBytesPerSpan, ab.baseline.promotedBytesPerSpan)})`,
  );
  console.log(
    `  B / A, total CPU per span: ${ab.totalRatio.toFixed(2)} (each round: ${ab.roundRatios.map(r => r.toFixed(2)).join(', ')}); goal ≤ 0.50: ${ab.totalRatio <= 0.5 ? 'met' : 'NOT met'}`,
  );
  if (ab.instructionRatio !== undefined)
    console.log(
      `  B / A, instructions per scored span (${instructionStore} results store): ${ab.instructionRatio.toFixed(3)} (A ${spreadText(ab.baseline.instructions)}, B ${spreadText(ab.candidate.instructions)}; callgrind, the host cannot move it)`,
    );
  if (ab.instructionWithoutCollectorRatio !== undefined)
    console.log(
      `  B / A, the same without V8's garbage collector: ${ab.instructionWithoutCollectorRatio.toFixed(3)} (A ${spreadText(ab.baseline.instructionsWithoutCollector)}, B ${spreadText(ab.candidate.instructionsWithoutCollector)}; the code's own, the collector's share follows the allocation figure)`,
    );
  for (const why of ab.instructionFailures) console.log(`  not counted: ${why}`);
  if (ab.baseline.budgets && ab.candidate.budgets) {
    const [a, b] = [ab.baseline.budgets, ab.candidate.budgets];
    console.log(`\n${BUDGETS_TITLE}, each side's code`);
    for (const [name, s] of [
      ['A', ab.baseline],
      ['B', ab.candidate],
    ] as const) {
      console.log(`  ${name} ${s.label}`);
      const figures = {
        ...s.budgets!,
        ...(s.instructions && { instructionsPerSpan: s.instructions, instructionStore }),
        ...(s.instructionsWithoutCollector && {
          instructionsWithoutCollectorPerSpan: s.instructionsWithoutCollector,
        }),
      };
      for (const line of budgetLines(figures, s.redisCommandsPerTrace)) console.log(`  ${line}`);
    }
    const r = (bv: number | undefined, av: number | undefined): string =>
      bv !== undefined && av !== undefined && av > 0 ? `${(bv / av).toFixed(3)}×` : 'n/a';
    console.log(
      `  B / A beside the CPU's ${ab.totalRatio.toFixed(2)}: instructions per span ${r(ab.candidate.instructions?.median, ab.baseline.instructions?.median)}; allocated per span ${r(b.allocatedBytesPerSpan.memory?.median, a.allocatedBytesPerSpan.memory?.median)} (memory store), ${r(b.allocatedBytesPerSpan.redis?.median, a.allocatedBytesPerSpan.redis?.median)} (Redis store); stored per trace ${r(b.storedBytesPerTrace.memory?.median, a.storedBytesPerTrace.memory?.median)} (memory), ${r(b.storedBytesPerTrace.redis?.median, a.storedBytesPerTrace.redis?.median)} (Redis); held per span ${r(b.heldBytesPerSpan?.median, a.heldBytesPerSpan?.median)}; Redis commands per trace ${r(ab.candidate.redisCommandsPerTrace, ab.baseline.redisCommandsPerTrace)}`,
    );
  }
  mkdirSync(new URL('results/', import.meta.url), { recursive: true });
  const abRecord = {
    date: new Date().toISOString(),
    node: process.version,
    rev: args.ab,
    seconds,
    ...(backendDelayMs !== undefined && { backendDelayMs }),
    rounds: abRounds,
    ...(instructionRuns > 0 && { instructionStore }),
    ...ab,
  };
  writeFileSync(
    new URL('results/ab.json', import.meta.url),
    `${JSON.stringify(abRecord, null, 2)}\n`,
  );
  // Beside the full run's figures too, so latest.json holds the cost comparison with the rest.
  const latest = new URL('results/latest.json', import.meta.url);
  const fullRun = existsSync(latest);
  if (fullRun) {
    const full = JSON.parse(readFileSync(latest, 'utf8')) as Record<string, unknown>;
    writeFileSync(latest, `${JSON.stringify({ ...full, ab: abRecord }, null, 2)}\n`);
  }
  console.log(
    `\nwrote bench/results/ab.json${fullRun ? ' and its `ab` field in bench/results/latest.json' : ''}`,
  );
  process.exit(0);
}

console.log(
  `spanscore bench: Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, median of ${rounds} rounds\n`,
);

const scoring = await scoringBench(rounds);
console.log(`Deterministic scoring, ${fmt(scoring.cases)} generated cases (tool_call_accuracy)`);
console.log(
  `  ${scoring.mastra.label.padEnd(62)} ${fmt(scoring.mastra.median).padStart(12)} cases/s   1.0×`,
);
console.log(
  `  ${scoring.scoreOnly.label.padEnd(62)} ${fmt(scoring.scoreOnly.median).padStart(12)} cases/s   ${scoring.scoreOnly.ratio.toFixed(1)}×`,
);
console.log(
  `  ${scoring.normalizeAndScore.label.padEnd(62)} ${fmt(scoring.normalizeAndScore.median).padStart(12)} cases/s   ${scoring.normalizeAndScore.ratio.toFixed(1)}×`,
);
console.log(
  `  (Mastra and spanscore timed in ${scoring.mastra.rates.length} alternating rounds; each ratio is the median of the rounds' ratios)`,
);
const vsMastra = (r: { ratio: number }): number => r.ratio;
console.log(
  `  agreement with Mastra (orderMode: 'mastra'): ${(scoring.mastraAgreement * 100).toFixed(2)}% of cases`,
);
console.log(
  `  goal ≥ 100× Mastra: scoring ${vsMastra(scoring.scoreOnly) >= 100 ? 'met' : 'NOT met'} (${vsMastra(scoring.scoreOnly).toFixed(0)}×); extraction from spans + scoring ${vsMastra(scoring.normalizeAndScore) >= 100 ? 'met' : 'NOT met'} (${vsMastra(scoring.normalizeAndScore).toFixed(0)}×)\n`,
);

// In a fresh process: the scoring bench's heap (Mastra and its dependencies) slows every
// allocating decoder, and not by the same factor; the two protobuf decoders each get an isolate.
const reading = JSON.parse(
  execFileSync(
    process.execPath,
    ['--expose-gc', '--import', 'tsx', join(import.meta.dirname, 'run-reading.ts'), String(rounds)],
    {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  ),
) as Awaited<ReturnType<typeof readingBench>>;
console.log(
  `Trace reading, ${fmt(reading.spans)} agent spans in ${reading.spansPerRequest}-span requests (${reading.bytesPerSpan.protobuf.toFixed(0)} B/span protobuf, ${reading.bytesPerSpan.json.toFixed(0)} B/span JSON)`,
);
for (const r of [
  reading.parseOnly,
  reading.decodeJson,
  reading.protobufjs,
  reading.decodePb,
  reading.decodePbRead,
  reading.filesJson,
  reading.filesPb,
]) {
  console.log(
    `  ${r.label.padEnd(62)} ${fmt(r.median).padStart(12)} spans/s   ${ratio(r.median, reading.parseOnly.median)}`,
  );
}
console.log('  (ratios against JSON.parse alone of the same JSON payloads)');
console.log(
  `  decodeOtlpProtobuf vs protobufjs static decode: ${reading.pbRatio.toFixed(2)}× (each in its own isolate; median of ${reading.decodePb.rates.length} alternating rounds' ratios; goal ≥ 1.5×); with every attribute read: ${reading.decodePbRead.ratio.toFixed(2)}×`,
);

const logs = await logsBench(rounds);
console.log(
  `\nThe logs signal, ${fmt(logs.records)} log records in ${logs.recordsPerRequest}-record requests as the OpenTelemetry OpenAI instrumentation sends them (${(logs.keptShare * 100).toFixed(0)}% GenAI events kept, the rest application log lines; ${logs.bytesPerRecord.protobuf.toFixed(0)} B/record protobuf, ${logs.bytesPerRecord.json.toFixed(0)} B/record JSON)`,
);
for (const r of [logs.parseOnly, logs.decodeJson, logs.decodePb, logs.decodeSpans])
  console.log(
    `  ${r.label.padEnd(62)} ${fmt(r.median).padStart(12)} per s   ${ratio(r.median, logs.parseOnly.median)}`,
  );
console.log('  (ratios against JSON.parse alone of the JSON logs payloads)');
console.log(
  `  ${logs.acceptLogs.label.padEnd(62)} ${fmt(logs.acceptLogs.median).padStart(12)} per s   ${(logs.acceptLogs.median / logs.acceptSpans.median).toFixed(2)}× traces`,
);
console.log(
  `  ${logs.acceptSpans.label.padEnd(62)} ${fmt(logs.acceptSpans.median).padStart(12)} per s   1.00×`,
);
console.log(
  `  joining log records at assembly, ${logs.chatsPerTrace} chat calls per trace: ${fmt(logs.normalizeInLogs.median)} traces/s normalized against ${fmt(logs.normalizeOnSpans.median)} with the same calls on the spans (${(logs.normalizeOnSpans.median / logs.normalizeInLogs.median).toFixed(2)}× the time; ${(1e6 / logs.normalizeInLogs.median).toFixed(1)} vs ${(1e6 / logs.normalizeOnSpans.median).toFixed(1)} µs a trace)`,
);

const compare = await compareBench(rounds);
console.log(
  `\nspanscore compare, two run summaries of ${fmt(compare.rows)} test case × scorer rows (${fmt(compare.bytesPerFile)} B each), in-process`,
);
console.log(
  `  ${'JSON.parse of both files (baseline)'.padEnd(62)} ${compare.baselineMs.toFixed(1).padStart(9)} ms   1.0×`,
);
for (const f of compare.formats)
  console.log(
    `  ${`compare --format ${f.format} (read, validate, compare, format)`.padEnd(62)} ${f.medianMs.toFixed(1).padStart(9)} ms   ${(f.medianMs / compare.baselineMs).toFixed(1)}×`,
  );
const slowest = Math.max(...compare.formats.map(f => f.medianMs));
console.log(
  `  goal < 1 s: ${slowest < 1000 ? 'met' : 'NOT met'} (slowest format ${slowest.toFixed(0)} ms)`,
);

const inspect = await inspectBench(rounds);
console.log(
  `\nspanscore inspect against spanscore score, ${fmt(inspect.traces)} traces of a real capture, in-process`,
);
console.log(`  ${'score (baseline)'.padEnd(62)} ${fmt(inspect.scoreMs).padStart(9)} ms   1.0×`);
console.log(
  `  ${'inspect --format json'.padEnd(62)} ${fmt(inspect.inspectMs).padStart(9)} ms   ${inspect.ratio.toFixed(2)}×`,
);
console.log(`  goal ≤ 2× score: ${inspect.ratio <= 2 ? 'met' : 'NOT met'}`);

const e2e = await endToEndBench();
console.log(
  `\nEnd to end (bullmq driver, local Redis): ${fmt(e2e.spans)} spans in ${fmt(e2e.traces)} traces over HTTP → Redis → worker → scored → evaluation spans exported`,
);
console.log(
  `  ${fmt(e2e.spansPerSecond)} spans/s (${e2e.seconds.toFixed(2)} s, first request to last evaluation span, 200 ms settle window included)`,
);

// The figures no host can blur, on the built modules; printed at the end, with the load's Redis
// commands per trace.
buildDist('the budget figures (they run its modules)');
const budgets: BudgetFigures = budgetFigures(undefined, budgetRuns);
await addInstructions(budgets);
let loadCommandsPerTrace: number | undefined;

// The load report: separate processes, 60 s each, closed loop (throughput and its cost) with 1
// and 2 workers, and with 2 without the results store (its share), then open loop below the
// 1-worker capacity (latency when the workers keep up); then the memory driver (one process, no
// Redis), closed loop and open loop at half of it.
let load: Record<string, unknown> | undefined;
let burst: BurstResult | undefined;
if (!args['no-load']) {
  const seconds = positiveArg('load-seconds') ?? 60;
  const profileDir = args.profile ? mkdtempSync(join(tmpdir(), 'spanscore-profile-')) : undefined;
  buildDist('the load report (the processes run the built CLI)');
  const perTrace = await redisBytesPerTrace();
  const runs: LoadResult[] = [];
  for (const workers of [1, 2]) runs.push(await loadBench({ workers, seconds }));
  // The same 2-worker closed loop without the results store: its share of the cost.
  runs.push(await loadBench({ workers: 2, seconds, resultsWrite: false }));
  const sustainable = Math.round((runs[0]!.scoredSpansPerSecond * 0.6) / 512) * 512;
  runs.push(
    await loadBench({
      workers: 1,
      seconds: Math.max(10, Math.round(seconds / 2)),
      rate: sustainable,
      ...(profileDir && { profileDir }),
    }),
  );
  const memoryClosed = await loadBench({ driver: 'memory', workers: 0, seconds });
  runs.push(memoryClosed);
  // The embedded driver on two threads (`queue.memoryThreads: 2`): receiving apart from scoring.
  runs.push(await loadBench({ driver: 'memory', workers: 0, seconds, memoryThreads: 2 }));
  runs.push(
    await loadBench({
      driver: 'memory',
      workers: 0,
      seconds: Math.max(10, Math.round(seconds / 2)),
      rate: Math.round(memoryClosed.scoredSpansPerSecond / 2 / 512) * 512,
    }),
  );
  // The same closed loop as the embedded default ran before its bounds: Node's own heap, 200,000
  // buffered spans, 50,000 results and 20,000 run records. What the bounds cost and save.
  const memoryFormer = await loadBench({
    driver: 'memory',
    workers: 0,
    seconds: Math.max(10, Math.round(seconds / 2)),
    memoryHeapMb: 0,
    maxBufferedSpans: 200_000,
    results: { maxResults: 50_000, maxRuns: 20_000 },
  });
  const report = loadReport(runs);
  for (const line of report.lines) console.log(line);
  const peakOf = (r: typeof memoryClosed): number =>
    Math.max(...Object.values(r.rssMb).map(v => v.peak));
  console.log(
    `  memory driver, closed loop, default bounds (queue.memoryHeapMb 192) vs Node's heap and the former bounds: peak RSS ${peakOf(memoryClosed).toFixed(0)} vs ${peakOf(memoryFormer).toFixed(0)} MB (${(peakOf(memoryClosed) / peakOf(memoryFormer)).toFixed(2)}×), scored ${fmt(memoryClosed.scoredSpansPerSecond)} vs ${fmt(memoryFormer.scoredSpansPerSecond)} spans/s (${(memoryClosed.scoredSpansPerSecond / memoryFormer.scoredSpansPerSecond).toFixed(2)}×), expired ${memoryClosed.tracesExpired} vs ${memoryFormer.tracesExpired}`,
  );
  console.log(
    `  Redis memory per buffered trace (20 spans, with its BullMQ job): ${fmt(perTrace.bytesPerTrace)} B (${fmt(perTrace.traces)} traces)`,
  );
  burst = await burstBench();
  printBurst(burst);
  if (profileDir) {
    console.log(`\nCPU profiles of the open-loop run (${profileDir}), self time, top 12:`);
    for (const file of readdirSync(profileDir).filter(f => f.endsWith('.cpuprofile'))) {
      console.log(`  ${file}`);
      for (const row of summarizeProfile(join(profileDir, file), 12))
        console.log(`    ${(row.share * 100).toFixed(1).padStart(5)}%  ${row.fn}`);
    }
  }
  loadCommandsPerTrace = report.redisCommandsPerTrace;
  load = {
    runs,
    cpuSecondsPerMillionSpans: report.cpu,
    resultsStoreShare: report.resultsStoreShare ?? null,
    redisCommandsPerTrace: report.redisCommandsPerTrace ?? null,
    redisBytesPerTrace: perTrace,
  };
}

console.log(`\n${BUDGETS_TITLE}`);
for (const line of budgetLines(budgets, loadCommandsPerTrace)) console.log(line);

mkdirSync(new URL('results/', import.meta.url), { recursive: true });
const out = {
  date: new Date().toISOString(),
  node: process.version,
  cpus: cpus().length,
  rounds,
  scoring,
  reading,
  logs,
  compare,
  inspect,
  endToEndShort: e2e,
  load,
  burst: burst ?? null,
  budgets: { runs: budgetRuns, ...budgets },
};
writeFileSync(new URL('results/latest.json', import.meta.url), `${JSON.stringify(out, null, 2)}\n`);
console.log('\nwrote bench/results/latest.json');
