/**
 * The cost of a scored span, this tree against another commit, measured side by side:
 * `npm run bench -- --ab REV [--ab-rounds N] [--load-seconds S]`. REV is checked out in a
 * temporary git worktree (sharing this tree's node_modules) and built; then each round runs the
 * closed-loop load (bullmq driver, 2 workers) on REV's CLI and on this tree's, alternating which
 * goes first, and the figures are the medians of the rounds: CPU seconds per million scored spans
 * by receiver, workers and Redis, Redis commands per trace, and scored spans/s. Then the figures
 * no host can blur (`budgetFigures`) on each side's built code: this tree's workload script
 * (bench/budget-figures.child.ts) loads REV's `dist/` modules, so a REV from before the script
 * existed is measured too, as long as the internals it calls kept their signatures (a side where
 * they did not says so in its `budgets.failures`). Last, machine instructions per scored span on
 * each side's code under callgrind (`instructionsPerSpan`), the CPU figure the host cannot blur.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { budgetFigures, type BudgetFigures, type Spread } from './budget-figures.js';
import {
  INSTRUCTION_RUNS,
  instructionsPerSpan,
  type InstructionStore,
} from './instructions-per-span.js';
import { loadBench, type LoadResult } from './load-bench.js';
import { cpuPerMillionSpans, promotedBytesPerSpan } from './load-report.js';
import { median } from './measure.js';

const ROOT = new URL('../', import.meta.url).pathname;

/** One side's medians over the rounds. */
export interface AbSide {
  label: string;
  cpu: { receiver: number; workers: number; redis: number; total: number };
  redisCommandsPerTrace: number;
  /**
   * Bytes V8 promoted to the old generation per scored span, every process (`LoadResult.gc`): what
   * outlived two young collections, which full collections follow; the host moves it little.
   */
  promotedBytesPerSpan: number;
  scoredSpansPerSecond: number;
  /** Each round's total, in order, to show the spread. */
  totals: number[];
  /** Allocation, stored and held bytes on this side's code (`budgetFigures`), when measured. */
  budgets?: BudgetFigures;
  /** Machine instructions per scored span on this side's code (`instructionsPerSpan`). */
  instructions?: Spread;
  /** The same without V8's garbage collector (`InstructionCount.withoutCollectorPerSpan`). */
  instructionsWithoutCollector?: Spread;
}

/** What {@link abCost} measured. */
export interface AbResult {
  baseline: AbSide;
  candidate: AbSide;
  /** candidate / baseline of the median total CPU per million spans. */
  totalRatio: number;
  /** Each round's candidate / baseline total, in order. */
  roundRatios: number[];
  /** candidate / baseline of the median instructions per scored span, when both were counted. */
  instructionRatio?: number;
  /** The same ratio without V8's garbage collector: the code's own, its runs within about 1%. */
  instructionWithoutCollectorRatio?: number;
  /** Why instructions were not counted on a side. */
  instructionFailures: string[];
}

/** Builds `rev` in a temporary worktree; returns its root, its CLI and a clean-up. */
function buildRev(rev: string): { dir: string; cli: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'spanscore-ab-'));
  execFileSync('git', ['worktree', 'add', '--detach', dir, rev], { cwd: ROOT, stdio: 'ignore' });
  const remove = () => {
    execFileSync('git', ['worktree', 'remove', '--force', dir], { cwd: ROOT, stdio: 'ignore' });
    if (existsSync(dir)) rmSync(dir, { recursive: true, force: true });
  };
  try {
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
    execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: dir, stdio: 'inherit' });
    return { dir, cli: join(dir, 'dist/cli/bin.js'), remove };
  } catch (error) {
    remove();
    throw error;
  }
}

function side(label: string, runs: LoadResult[]): AbSide {
  const parts = runs.map(cpuPerMillionSpans);
  return {
    label,
    cpu: {
      receiver: median(parts.map(p => p.receiver)),
      workers: median(parts.map(p => p.workers)),
      redis: median(parts.map(p => p.redis ?? 0)),
      total: median(parts.map(p => p.total)),
    },
    redisCommandsPerTrace: median(runs.map(r => r.redisCommandsPerTrace?.total ?? 0)),
    promotedBytesPerSpan: median(runs.map(promotedBytesPerSpan)),
    scoredSpansPerSecond: median(runs.map(r => r.scoredSpansPerSecond)),
    totals: parts.map(p => p.total),
  };
}

/** Runs the A/B: `rounds` alternating pairs of closed-loop runs of `seconds` each. */
export async function abCost(
  rev: string,
  rounds: number,
  seconds: number,
  traffic: {
    /**
     * Traffic whose traces carry session ids (see `LoadOptions.sessions`); `health`: and this
     * tree runs `toolHealth.sessions` on them (every conversation held and scored).
     */
    sessions?: boolean | 'health';
    /** The evaluation-span backend answers each export after this many ms (`LoadOptions.backendDelayMs`). */
    backendDelayMs?: number;
    /** Runs of each budget figure per side (`budgetFigures`); 0 skips them. @defaultValue 5 */
    budgetRuns?: number;
    /** This tree (B) runs with `results.layout: 2`; A with its default. */
    layout2?: boolean;
    /**
     * Runs of the instruction count per side (`instructionsPerSpan`, about 2.5 minutes a run, the
     * two sides side by side); 0 skips it. @defaultValue 2
     */
    instructionRuns?: number;
    /** The results store of the instruction count (`InstructionStore`). @defaultValue 'memory' */
    instructionStore?: InstructionStore;
  } = {},
): Promise<AbResult> {
  const {
    sessions = false,
    backendDelayMs,
    budgetRuns = 5,
    layout2 = false,
    instructionRuns = INSTRUCTION_RUNS,
    instructionStore = 'memory',
  } = traffic;
  const baseline = buildRev(rev);
  try {
    const current = join(ROOT, 'dist/cli/bin.js');
    const a: LoadResult[] = [];
    const b: LoadResult[] = [];
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? (['a', 'b'] as const) : (['b', 'a'] as const);
      for (const which of order) {
        const run = await loadBench({
          workers: 2,
          seconds,
          ...(sessions && {
            sessions:
              which === 'a'
                ? 'traffic'
                : sessions === 'health'
                  ? 'traffic-and-health'
                  : 'traffic-and-case',
          }),
          ...(backendDelayMs !== undefined && { backendDelayMs }),
          ...(layout2 && which === 'b' && { resultsLayout: 2 as const }),
          cli: which === 'a' ? baseline.cli : current,
        });
        (which === 'a' ? a : b).push(run);
      }
    }
    const base = side(rev, a);
    const cand = side('this tree', b);
    if (budgetRuns > 0) {
      base.budgets = budgetFigures(baseline.dir, budgetRuns);
      cand.budgets = budgetFigures(ROOT, budgetRuns);
    }
    let instructionFailures: string[] = [];
    if (instructionRuns > 0) {
      const counted = await instructionsPerSpan(
        [baseline.dir, ROOT],
        instructionRuns,
        instructionStore,
      );
      const [a, b] = counted.spreads;
      if (a) base.instructions = a;
      if (b) cand.instructions = b;
      const [ac, bc] = counted.withoutCollector;
      if (ac) base.instructionsWithoutCollector = ac;
      if (bc) cand.instructionsWithoutCollector = bc;
      instructionFailures = counted.failures;
    }
    return {
      baseline: base,
      candidate: cand,
      totalRatio: cand.cpu.total / base.cpu.total,
      roundRatios: base.totals.map((t, i) => cand.totals[i]! / t),
      ...(base.instructions &&
        cand.instructions && {
          instructionRatio: cand.instructions.median / base.instructions.median,
        }),
      ...(base.instructionsWithoutCollector &&
        cand.instructionsWithoutCollector && {
          instructionWithoutCollectorRatio:
            cand.instructionsWithoutCollector.median / base.instructionsWithoutCollector.median,
        }),
      instructionFailures,
    };
  } finally {
    baseline.remove();
  }
}
