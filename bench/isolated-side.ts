import { setTimeout } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import { median } from './measure.js';

/** A bench side running in its own worker thread, timed one round at a time. */
interface IsolatedSide {
  /** Runs `passes` passes and returns units per second. */
  round(passes: number): Promise<number>;
  stop(): Promise<number>;
}

/**
 * Starts `file` (a TypeScript module that calls {@link serveSide}) in a worker thread of its own:
 * its own V8 isolate, so its heap, JIT state and inline caches are its own, as in a process that
 * runs only that code. Waits until the side has built its data and warmed up.
 */
async function startIsolatedSide(file: URL, workerData: unknown): Promise<IsolatedSide> {
  // The worker loads TypeScript through tsx's API: Node 20 does not pass a parent's
  // `--import tsx` hooks on to a worker's entry.
  const entry = `import('tsx/esm/api').then(tsx => tsx.tsImport(${JSON.stringify(file.href)}, ${JSON.stringify(import.meta.url)}))`;
  const worker = new Worker(entry, {
    eval: true,
    workerData,
    // The young generation a Node main thread gets here (V8 sizes a worker's smaller, which made
    // the allocating sides 60% slower than the same code on a main thread).
    resourceLimits: { maxYoungGenerationSizeMb: 48 },
  });
  let failed: Error | undefined;
  worker.on('error', error => (failed = error));
  worker.once('exit', () => (failed ??= new Error(`bench side ${file.pathname} exited`)));
  const next = (): Promise<{ rate?: number }> =>
    new Promise((resolve, reject) => {
      if (failed) reject(failed);
      worker.once('message', resolve);
    });
  await next();
  return {
    round: async passes => {
      const reply = next();
      worker.postMessage({ passes });
      return (await reply).rate!;
    },
    stop: () => worker.terminate(),
  };
}

/** One side's rates, their median, and the median of its per-round ratios to the first side. */
export interface SideResult {
  label: string;
  rates: number[];
  median: number;
  ratio: number;
}

/**
 * Times `sides` of `file` against each other: each in a worker thread of its own
 * ({@link startIsolatedSide}), one at a time, in `rounds` alternating rounds, with a pause before
 * each side for the last one's background GC work to finish. A side runs `passes` passes a round
 * (a fast side more, so it is timed long enough to average out a passing burst of load); its rates
 * are the side's units per second times `scale`. Each ratio is the median of the rounds' ratios
 * to the first side, so load that comes and goes moves the rates but hardly the ratios.
 */
export async function compareIsolated(
  file: URL,
  sides: ReadonlyArray<{ label: string; workerData: unknown; passes: number }>,
  rounds: number,
  scale = 1,
): Promise<SideResult[]> {
  const workers = await Promise.all(sides.map(s => startIsolatedSide(file, s.workerData)));
  try {
    const rates = sides.map(() => [] as number[]);
    for (let r = 0; r < rounds; r++)
      for (const [k, s] of sides.entries()) {
        await setTimeout(100);
        rates[k]!.push((await workers[k]!.round(s.passes)) * scale);
      }
    return sides.map((s, k) => ({
      label: s.label,
      rates: rates[k]!,
      median: median(rates[k]!),
      ratio: median(rates[k]!.map((x, r) => x / rates[0]![r]!)),
    }));
  } finally {
    await Promise.all(workers.map(w => w.stop()));
  }
}

/**
 * The worker half: warms up with one `pass()`, says it is ready, then answers each `{ passes }`
 * with `{ rate }` after timing that many passes, rate in `units` per pass per second.
 */
export async function serveSide(
  port: { on(e: 'message', f: (m: unknown) => void): void; postMessage(m: unknown): void },
  units: number,
  pass: () => void | Promise<void>,
): Promise<void> {
  await pass();
  port.on('message', msg => {
    const { passes } = msg as { passes: number };
    void (async () => {
      const start = process.hrtime.bigint();
      for (let p = 0; p < passes; p++) await pass();
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      port.postMessage({ rate: (units * passes) / seconds });
    })();
  });
  port.postMessage({ ready: true });
}
