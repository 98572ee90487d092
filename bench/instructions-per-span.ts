import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FIGURE_NODE_FLAGS, spreadOf, type Spread } from './budget-figures.js';
import {
  callgrindFlags,
  codeMapFlags,
  codeMapOf,
  keepMainThread,
  instructionProfile,
  type InstructionProfile,
} from './instruction-profile.js';
import type { PipelineFigures } from './pipeline-allocation.js';
import { THIS_TREE } from './side-modules.js';

const CHILD = fileURLToPath(new URL('./budget-figures.child.ts', import.meta.url));

/**
 * V8 flags of the counted process, past {@link FIGURE_NODE_FLAGS}: V8's predictable mode (no
 * concurrent compiler or collector work) with hashes and `Math.random` seeded, and an old space
 * large enough that no full collection runs in the pass. V8 schedules those from allocation rates
 * it measures by the clock, so one run of a build had one and the next did not: 5% apart (a full
 * collection's 220 million instructions). Young-generation collections, which follow the bytes
 * allocated, are counted.
 */
const COUNTED_NODE_FLAGS = [
  '--predictable',
  '--hash-seed=1',
  '--random-seed=1',
  '--initial-old-space-size=1024',
] as const;

/**
 * Requests of warm-up before the counted pass (`pipelineAllocation`'s `warmUpRequests`; its 40
 * requests are counted), so that the pass counts a service's steady state, not V8 still compiling
 * it. The pass starts without `gc()` (`collectFirst: false`): `gc()` dropped the optimized code of
 * every function, and with V8 compiling on the main thread, as predictable mode has it, its
 * optimizing compiler ran 45% of the counted instructions (170 compilations in the pass). After
 * 40 requests of warm-up it still ran 22% (47 compilations: functions first made hot in the pass,
 * and callers of the pass's new results store); after 120, with the warm-up's store kept for the
 * pass (`storePerPass: false`), 6 compilations and no deoptimization.
 */
export const INSTRUCTIONS_WARM_UP_REQUESTS = 120;

/**
 * Runs of the count per build unless told (`--instruction-runs`), their median the figure: at
 * steady state one run of a build spread up to about 4.5% from the next (96,350–100,805 for
 * 38d1582 in 6 runs, 103,880–108,299 for this tree in 10, 2026-11-29); a median of 3 halves that.
 */
export const INSTRUCTION_RUNS = 3;

/**
 * The bracket `pipelineAllocation` calls around its measured pass in a process callgrind runs
 * with counting off (`--instr-atstart=no`): counters zeroed and counting on at the start, off at
 * the end, through `callgrind_control` (valgrind's own tool; it reaches the process through
 * `vgdb` while the process waits for the call to return).
 */
export function callgrindBracket(): { start(): void; stop(): void } {
  const control = (...args: string[]): void => {
    execFileSync('callgrind_control', [...args, String(process.pid)], { stdio: 'ignore' });
  };
  return {
    start: () => {
      control('--zero');
      control('--instr=on');
    },
    stop: () => control('--instr=off'),
  };
}

/**
 * How many times slower time passes in the counted process (about how much slower callgrind runs
 * it than Node does): see {@link slowClock}.
 */
const CLOCK_SLOWDOWN = 50;

/**
 * Slows the process's clocks and timers by {@link CLOCK_SLOWDOWN} (`performance.now`,
 * `Date.now`, `setTimeout`, `setInterval`), before the code under count loads (some of it takes
 * the clock once, when its module loads). Under callgrind a 10 ms scoring slice or export batch
 * window would hold 50 times less work than in Node, and how much less would follow the host's
 * load: runs of one build then differed by 5% when something else ran beside them. With the clocks
 * slowed, such time-driven work weighs about what it does in Node.
 */
export function slowClock(): void {
  const realNow = performance.now.bind(performance);
  const startedAt = realNow();
  const startedDate = Date.now();
  const elapsed = (): number => (realNow() - startedAt) / CLOCK_SLOWDOWN;
  performance.now = () => startedAt + elapsed();
  Date.now = () => startedDate + Math.floor(elapsed());
  type Schedule = (fn: () => void, ms?: number, ...args: unknown[]) => unknown;
  const realSetTimeout = globalThis.setTimeout as Schedule;
  const realSetInterval = globalThis.setInterval as Schedule;
  // Past 2^31 - 1 ms Node would fire a timer at once.
  const slowed = (ms: number): number => Math.min(ms * CLOCK_SLOWDOWN, 2 ** 31 - 1);
  globalThis.setTimeout = ((fn, ms = 0, ...args) =>
    realSetTimeout(fn, slowed(ms), ...args)) as Schedule as typeof setTimeout;
  globalThis.setInterval = ((fn, ms = 0, ...args) =>
    realSetInterval(fn, slowed(ms), ...args)) as Schedule as typeof setInterval;
}

/** Why instructions cannot be counted here (valgrind's tools missing), or `undefined`. */
export function instructionsUnavailable(): string | undefined {
  for (const tool of ['valgrind', 'callgrind_control'])
    if (spawnSync(tool, ['--version'], { stdio: 'ignore' }).status !== 0)
      return `${tool} not found (Debian's package valgrind)`;
  // It reads every count's profile; its `--version` exits 255, so only its absence is checked.
  if (spawnSync('callgrind_annotate', ['--version'], { stdio: 'ignore' }).error)
    return `callgrind_annotate not found (Debian's package valgrind)`;
  return undefined;
}

/**
 * The results store of a counted pass. `memory`: the memory driver's in-process path, the figure
 * budgets hold. `redis`: the same pass writing the results to a real Redis (at `REDIS_URL`, else
 * the local one) through the Redis store, as a `bullmq` worker does: ioredis's command encoding
 * and reply parsing, and the store's batching, counted too (Redis's own work is in its process,
 * not counted), in results layout 1, the default; `redis-layout2` with `results.layout: 2`.
 * Replies arrive by the clock, and the store writes in 50 ms batches: runs of one build spread
 * more than the memory store's (one of 38d1582's three ran 10% under the other two).
 */
export type InstructionStore = 'memory' | 'redis' | 'redis-layout2';

/**
 * Machine instructions per scored span of the hot path: `pipelineAllocation`'s workload with the
 * memory results store unless told (`store`; decode, assemble, normalize, score, store, encode; 20,480 spans after
 * 61,440 of warm-up, with one results store for both) on the built `dist/` of `root`, in a process
 * of its own under valgrind's callgrind, counting only the measured pass ({@link callgrindBracket})
 * on the main thread (`keepMainThread`).
 * With `keep`, callgrind's profile is written to `keep.profile` and V8's map of its compiled
 * functions beside it (`.map`), for `instructionProfile` to name them.
 *
 * What CPU time on a shared host cannot resolve (an A/B's ±10%), instructions can: they do not
 * move with the host's load or clock; one run of a build spreads up to about 4.5% from the next
 * (see {@link INSTRUCTION_RUNS}). They are not
 * time: a cache miss or a mispredicted branch costs no more instructions than a hit, and V8 runs
 * in its predictable mode (compilers and collector on the main thread, so their work is
 * counted, as on a host with no core to spare). Timers still fire by the clock, and callgrind
 * runs the pass about 50 times slower than Node does, so time-driven work (the evaluation spans'
 * export batches) weighs more here than in a real run. About a minute and a half a run.
 */
export function countInstructions(
  root: string = THIS_TREE,
  keep?: { profile: string },
  store: InstructionStore = 'memory',
): Promise<InstructionCount> {
  // The profile is read for the collector's share, kept only when asked.
  const dir = mkdtempSync(join(tmpdir(), 'spanscore-instructions-'));
  // Written here, thread by thread, and the main thread's copied to `keep.profile` when kept.
  const profile = join(dir, 'callgrind.out');
  return new Promise<InstructionCount>((resolve, reject) => {
    const child = spawn(
      'valgrind',
      [
        ...callgrindFlags(profile),
        process.execPath,
        // V8 writes where it put each compiled function (/tmp/perf-PID.map), to name them.
        ...(keep ? codeMapFlags(dir) : []),
        ...FIGURE_NODE_FLAGS,
        ...COUNTED_NODE_FLAGS,
        '--import',
        'tsx',
        CHILD,
        `instructions-${store}`,
        root,
      ],
      { cwd: THIS_TREE, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
    child.stderr
      .setEncoding('utf8')
      .on('data', (s: string) => (stderr = (stderr + s).slice(-20_000)));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      // Every path settles the promise (a throw here would escape the listener, and the
      // temporary profile would stay), and V8's map leaves /tmp whatever happened.
      const map = codeMapOf(child.pid);
      try {
        if (code !== 0) {
          const last = stderr
            .split('\n')
            .filter(l => l && !l.startsWith('=='))
            .slice(-3);
          throw new Error(`callgrind exited ${String(code ?? signal)}: ${last.join(' / ')}`);
        }
        // The main thread's count: what Node's other threads ran lands by the clock.
        const main = keepMainThread(profile);
        const figures = JSON.parse(stdout) as PipelineFigures;
        if (keep) {
          copyFileSync(profile, keep.profile);
          copyFileSync(map, `${keep.profile}.map`);
        }
        // Read once: named from the map when kept, else only V8's own stages told apart.
        const read = instructionProfile(keep?.profile ?? profile, figures.spans, {
          named: keep !== undefined,
        });
        if (read.total === 0) throw new Error(`callgrind's profile ${profile} counted nothing`);
        const collector = read.stages.find(s => s.name === 'v8: gc')?.perSpan ?? 0;
        const perSpan = main / figures.spans;
        resolve({
          perSpan,
          withoutCollectorPerSpan: perSpan - collector,
          ...(keep && { profile: read }),
        });
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      } finally {
        if (keep) rmSync(map, { force: true });
      }
    });
  }).finally(() => {
    rmSync(dir, { recursive: true, force: true });
  });
}

/** What {@link countInstructions} counted, per scored span of the pass. */
export interface InstructionCount {
  perSpan: number;
  /**
   * All but V8's garbage collector's (its C++ functions, by symbol). The collector's work follows
   * what is alive when each young-generation collection runs, which follows the timing of the
   * pass (how many traces are in flight): it is most of what spreads one run from the next (in
   * two runs of one build, the collector differed by 938 instructions a span and the rest by 59;
   * in two pairs of runs of 38d1582 and this tree, 2026-11-29, the rest 0.4% and 0.7% apart, the
   * whole 2.5% and 0.5%). The collector's share follows the bytes allocated, which the allocation
   * figure counts.
   */
  withoutCollectorPerSpan: number;
  /** With `keep`: where the instructions went (`instructionProfile` of the kept profile). */
  profile?: InstructionProfile;
}

/**
 * {@link countInstructions} `runs` times on each of `roots`, a run of every root at once (each
 * process is single-threaded, and instructions do not depend on what runs beside them: two
 * roots side by side take the time of one). A root whose run fails is left out, with why.
 */
export async function instructionsPerSpan(
  roots: readonly string[],
  runs = INSTRUCTION_RUNS,
  store: InstructionStore = 'memory',
): Promise<{
  spreads: Array<Spread | undefined>;
  /** The same runs without V8's collector (`InstructionCount.withoutCollectorPerSpan`). */
  withoutCollector: Array<Spread | undefined>;
  failures: string[];
}> {
  const unavailable = instructionsUnavailable();
  if (unavailable)
    return {
      spreads: roots.map(() => undefined),
      withoutCollector: roots.map(() => undefined),
      failures: [`instructions: ${unavailable}`],
    };
  const counts: InstructionCount[][] = roots.map(() => []);
  const failures: string[] = [];
  const failed = new Set<number>();
  for (let run = 0; run < runs; run++)
    await Promise.all(
      roots.map(async (root, i) => {
        if (failed.has(i)) return;
        try {
          counts[i]!.push(await countInstructions(root, undefined, store));
        } catch (error) {
          failed.add(i);
          failures.push(`instructions: ${(error as Error).message.slice(0, 300)}`);
        }
      }),
    );
  const spread = (i: number, of: (c: InstructionCount) => number): Spread | undefined =>
    failed.has(i) || counts[i]!.length === 0 ? undefined : spreadOf(counts[i]!.map(of));
  return {
    spreads: roots.map((_, i) => spread(i, c => c.perSpan)),
    withoutCollector: roots.map((_, i) => spread(i, c => c.withoutCollectorPerSpan)),
    failures,
  };
}
