import { Worker } from 'node:worker_threads';

/** A bench side running in its own worker thread, timed one round at a time. */
export interface IsolatedSide {
  /** Runs `passes` passes over `units` units (items `from` to `to`) and returns units per second. */
  round(passes: number, from: number, to: number): Promise<number>;
  stop(): Promise<number>;
}

/**
 * Starts `file` (a TypeScript module that answers `{ passes, from, to }` messages with
 * `{ rate }`, see `scoring-side.ts`) in a worker thread of its own: its own V8 isolate, so its
 * heap, JIT state and inline caches are its own, as in a process that runs only that code. Waits
 * until the side has built its data and warmed up (its first message).
 */
export async function startIsolatedSide(file: URL, workerData: unknown): Promise<IsolatedSide> {
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
    round: async (passes, from, to) => {
      const reply = next();
      worker.postMessage({ passes, from, to });
      return (await reply).rate!;
    },
    stop: () => worker.terminate(),
  };
}

/**
 * The worker half: answers each `{ passes, from, to }` with `{ rate }` after timing `passes`
 * calls of `pass(from, to)`, rate in units per second; warms up first with one pass over
 * `0..units`, then says it is ready.
 */
export async function serveSide(
  port: { on(e: 'message', f: (m: unknown) => void): void; postMessage(m: unknown): void },
  units: number,
  pass: (from: number, to: number) => void | Promise<void>,
): Promise<void> {
  await pass(0, units);
  port.on('message', msg => {
    const { passes, from, to } = msg as { passes: number; from: number; to: number };
    void (async () => {
      const start = process.hrtime.bigint();
      for (let p = 0; p < passes; p++) await pass(from, to);
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      port.postMessage({ rate: ((to - from) * passes) / seconds });
    })();
  });
  port.postMessage({ ready: true });
}
