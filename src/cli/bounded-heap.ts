import { Worker, type ResourceLimits } from 'node:worker_threads';

/** Set in the bounded thread's environment: its heap bound, in MB. */
const BOUNDED = 'SPANSCORE_HEAP_BOUNDED_MB';

const HEAP_FLAG = /--max-old-space-size(=|\s)/;
const SEMI_SPACE_FLAG = /--max-semi-space-size(=|\s)/;

/**
 * The young generation's semi-space the bounded service runs with, in MB, unless one is set: V8's
 * default for a large heap. At full load (bench, closed loop, 20 s runs, 3 alternating pairs) 16
 * against 8 gave 46,900-51,500 scored spans/s against 44,700-46,300, 22.7-25.5 against 26.0-27.0
 * µs of CPU a span, and peak RSS 276-281 against 258-263 MB (serve and the service it starts): a
 * small young generation promotes more of what a trace briefly holds, and the old generation of a
 * bounded heap is collected often. (8 was chosen when a full buffer refused requests at once and
 * the service stood idle part of each second, so its CPU did not show in throughput.) 32 read
 * 54,000 spans/s but 308 MB.
 */
const SEMI_SPACE_MB = 16;

/** Whether node's options (`NODE_OPTIONS` or its command line) set `flag`. */
const nodeOptionSet = (flag: RegExp): boolean =>
  [process.env.NODE_OPTIONS ?? '', ...process.execArgv].some(arg => flag.test(arg));

/** What `serve` says to do when a bounded heap ran out, after saying whose heap it was. */
export const OUT_OF_HEAP_ADVICE =
  'raise queue.memoryHeapMb (SPANSCORE_MEMORY_HEAP_MB), or lower assembly.maxBufferedSpans or results.maxResults';

/**
 * The `resourceLimits` of a worker thread whose V8 heap is bounded to `maxHeapMb`: its old
 * generation, and a young generation of {@link SEMI_SPACE_MB} semi-spaces unless node's options
 * set one (the operator's choice, which V8's flags then give every thread).
 */
export function boundedThreadLimits(maxHeapMb: number): ResourceLimits {
  return {
    maxOldGenerationSizeMb: maxHeapMb,
    // V8's young generation is three semi-spaces: two, and the space for large new objects.
    ...(nodeOptionSet(SEMI_SPACE_FLAG) ? {} : { maxYoungGenerationSizeMb: 3 * SEMI_SPACE_MB }),
  };
}

/** The heap bound spanscore started this thread with, or null when it did not. */
export function boundedHeapMb(): number | null {
  const mb = Number(process.env[BOUNDED]);
  return Number.isInteger(mb) && mb > 0 ? mb : null;
}

/**
 * Whether `serve` must run its service in a thread with a heap of `maxHeapMb`: a bound is asked
 * for, this is not already the bounded thread, and nobody chose a heap size (`--max-old-space-size` in
 * `NODE_OPTIONS` or on node's command line is the operator's choice, kept as it is).
 */
export function needsHeapBound(maxHeapMb: number): boolean {
  return maxHeapMb > 0 && boundedHeapMb() === null && !nodeOptionSet(HEAP_FLAG);
}

/**
 * Runs this same command again in a worker thread whose V8 heap is bounded to `maxHeapMb`
 * ({@link boundedThreadLimits}) and resolves with its exit code. V8 fixes a heap's limit when its isolate
 * starts, so a bound cannot be set from inside: this is how the embedded service stays within its
 * memory under any load. A thread, not a second process: the process that started it holds only
 * the command line it parsed (a child process started again held about 65 MB of RSS idle).
 *
 * Contract: the thread writes to this process's stdout and stderr. SIGINT and SIGTERM reach it
 * through this thread, once each time they arrive (a second Ctrl-C is the service's "exit now").
 * A thread that runs out of its heap, or throws what nothing caught, ends; this says so and
 * resolves 1.
 */
export function runWithBoundedHeap(
  maxHeapMb: number,
  log: (line: string) => void,
): Promise<number> {
  const thread = new Worker(new URL('./bounded-heap-thread.js', import.meta.url), {
    workerData: { argv: process.argv.slice(2) },
    env: { ...process.env, [BOUNDED]: String(maxHeapMb) },
    resourceLimits: boundedThreadLimits(maxHeapMb),
  });
  const forward = (signal: NodeJS.Signals): void => thread.postMessage({ signal });
  const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM'];
  for (const signal of signals) process.on(signal, forward);
  return new Promise(resolve => {
    let failed = false;
    thread.once('error', (error: Error & { code?: string }) => {
      failed = true;
      log(
        error.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? `spanscore: the service ran out of its ${maxHeapMb} MB heap: ${OUT_OF_HEAP_ADVICE}`
          : `spanscore: the service failed: ${error.stack ?? String(error)}`,
      );
    });
    thread.once('exit', code => {
      for (const s of signals) process.off(s, forward);
      resolve(failed ? 1 : code);
    });
  });
}
