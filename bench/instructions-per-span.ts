import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { FIGURE_NODE_FLAGS, spreadOf, type Spread } from './budget-figures.js';
import type { PipelineFigures } from './pipeline-allocation.js';
import { THIS_TREE } from './side-modules.js';

const CHILD = fileURLToPath(new URL('./budget-figures.child.ts', import.meta.url));

/**
 * V8 flags of the counted process, past {@link FIGURE_NODE_FLAGS}: V8's predictable mode (no
 * concurrent compiler or collector work, no timer-driven heap shrinking) with hashes and
 * `Math.random` seeded. Two runs of one build then differ by about 1% (242,974 and 245,467
 * instructions a span); with `--single-threaded` alone, by 2.4%.
 */
const COUNTED_NODE_FLAGS = ['--predictable', '--hash-seed=1', '--random-seed=1'] as const;

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

/** Why instructions cannot be counted here (valgrind's tools missing), or `undefined`. */
export function instructionsUnavailable(): string | undefined {
  for (const tool of ['valgrind', 'callgrind_control'])
    if (spawnSync(tool, ['--version'], { stdio: 'ignore' }).status !== 0)
      return `${tool} not found (Debian's package valgrind)`;
  return undefined;
}

/**
 * Machine instructions per scored span of the hot path: `pipelineAllocation`'s workload with the
 * memory results store (decode, assemble, normalize, score, store, encode; 20,480 spans after
 * 5,120 of warm-up) on the built `dist/` of `root`, in a process of its own under valgrind's
 * callgrind, counting only the measured pass ({@link callgrindBracket}).
 *
 * What CPU time on a shared host cannot resolve (an A/B's ±10%), instructions can: they do not
 * move with the host's load or clock, and runs of one build agree within about 1%. They are not
 * time: a cache miss or a mispredicted branch costs no more instructions than a hit, and V8 runs
 * in its predictable mode (compilers and collector on the main thread, so their work is
 * counted, as on a host with no core to spare). Timers still fire by the clock, and callgrind
 * runs the pass about 50 times slower than Node does, so time-driven work (the evaluation spans'
 * export batches) weighs more here than in a real run. About two and a half minutes a run.
 */
export function countInstructions(root: string = THIS_TREE): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      'valgrind',
      [
        '--tool=callgrind',
        '--instr-atstart=no',
        '--callgrind-out-file=/dev/null',
        process.execPath,
        ...FIGURE_NODE_FLAGS,
        ...COUNTED_NODE_FLAGS,
        '--import',
        'tsx',
        CHILD,
        'instructions-memory',
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
      const collected = /Collected\s*:\s*(\d+)/.exec(stderr);
      if (code !== 0 || !collected) {
        const last = stderr
          .split('\n')
          .filter(l => l && !l.startsWith('=='))
          .slice(-3);
        reject(
          new Error(
            `callgrind ${code !== 0 ? `exited ${String(code ?? signal)}` : 'printed no "Collected" count'}: ${last.join(' / ')}`,
          ),
        );
        return;
      }
      const figures = JSON.parse(stdout) as PipelineFigures;
      resolve(Number(collected[1]) / figures.spans);
    });
  });
}

/**
 * {@link countInstructions} `runs` times on each of `roots`, a run of every root at once (each
 * process is single-threaded, and instructions do not depend on what runs beside them: two
 * roots side by side take the time of one). A root whose run fails is left out, with why.
 */
export async function instructionsPerSpan(
  roots: readonly string[],
  runs = 2,
): Promise<{ spreads: Array<Spread | undefined>; failures: string[] }> {
  const unavailable = instructionsUnavailable();
  if (unavailable)
    return { spreads: roots.map(() => undefined), failures: [`instructions: ${unavailable}`] };
  const counts: number[][] = roots.map(() => []);
  const failures: string[] = [];
  const failed = new Set<number>();
  for (let run = 0; run < runs; run++)
    await Promise.all(
      roots.map(async (root, i) => {
        if (failed.has(i)) return;
        try {
          counts[i]!.push(await countInstructions(root));
        } catch (error) {
          failed.add(i);
          failures.push(`instructions: ${(error as Error).message.slice(0, 300)}`);
        }
      }),
    );
  return {
    spreads: counts.map((c, i) => (failed.has(i) || c.length === 0 ? undefined : spreadOf(c))),
    failures,
  };
}
