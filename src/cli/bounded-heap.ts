import { spawn } from 'node:child_process';
import { constants } from 'node:os';

/** Set in the child's environment: the heap bound, in MB, its parent started it with. */
const BOUNDED = 'SPANSCORE_HEAP_BOUNDED_MB';

const HEAP_FLAG = /--max-old-space-size(=|\s)/;
const SEMI_SPACE_FLAG = /--max-semi-space-size(=|\s)/;

/**
 * The young generation's semi-space the bounded child runs with, in MB, unless one is set: V8's
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

/** The heap bound spanscore started this process with, or null when it did not. */
export function boundedHeapMb(): number | null {
  const mb = Number(process.env[BOUNDED]);
  return Number.isInteger(mb) && mb > 0 ? mb : null;
}

/**
 * Whether `serve` must start again to run under a heap of `maxHeapMb`: a bound is asked for, this
 * process is not already the bounded one, and nobody chose a heap size (`--max-old-space-size` in
 * `NODE_OPTIONS` or on node's command line is the operator's choice, kept as it is).
 */
export function needsHeapBound(maxHeapMb: number): boolean {
  return maxHeapMb > 0 && boundedHeapMb() === null && !nodeOptionSet(HEAP_FLAG);
}

/**
 * Runs this same command again in a child Node process with `--max-old-space-size=maxHeapMb` (and
 * a smaller young generation, {@link SEMI_SPACE_MB}) and resolves with its exit code. V8 fixes its heap limit when a process starts, so a bound cannot be
 * set from inside: this is how the embedded service stays within its memory under any load.
 *
 * Contract: the child shares stdout and stderr; it runs in a process group of its own, so that a
 * terminal's Ctrl-C reaches it once, forwarded by this process, as SIGTERM and SIGHUP are (a second
 * Ctrl-C forwards a second SIGINT: the service's "exit now"). When this process dies without a
 * word (SIGKILL), the child sees its IPC channel close and shuts down as on SIGTERM
 * ({@link stopWhenParentDies}). A child ended by a signal (killed, or V8 out of heap) resolves 1
 * after saying so.
 */
export function runWithBoundedHeap(
  maxHeapMb: number,
  log: (line: string) => void,
): Promise<number> {
  const child = spawn(
    process.execPath,
    [
      ...process.execArgv,
      `--max-old-space-size=${maxHeapMb}`,
      ...(nodeOptionSet(SEMI_SPACE_FLAG) ? [] : [`--max-semi-space-size=${SEMI_SPACE_MB}`]),
      ...process.argv.slice(1),
    ],
    {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      detached: true,
      env: { ...process.env, [BOUNDED]: String(maxHeapMb) },
    },
  );
  const forward = (signal: NodeJS.Signals): void => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  };
  const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  for (const signal of signals) process.on(signal, forward);
  return new Promise(resolve => {
    child.once('error', error => {
      log(`spanscore: cannot start the service with a bounded heap: ${error.message}`);
      resolve(1);
    });
    child.once('exit', (code, signal) => {
      for (const s of signals) process.off(s, forward);
      if (signal) {
        const hint =
          signal === 'SIGABRT' || signal === 'SIGKILL'
            ? ` (out of memory? raise queue.memoryHeapMb, now ${maxHeapMb} MB, or lower assembly.maxBufferedSpans)`
            : '';
        log(`spanscore: the service process ended by ${signal}${hint}`);
        resolve(signal === 'SIGINT' || signal === 'SIGTERM' ? 128 + constants.signals[signal] : 1);
        return;
      }
      resolve(code ?? 1);
    });
  });
}

/**
 * In the bounded child: shut down as on SIGTERM when the parent's IPC channel closes (the parent
 * died), and never let that channel alone keep the process alive.
 */
export function stopWhenParentDies(): void {
  if (!process.channel) return;
  process.channel.unref();
  process.once('disconnect', () => process.kill(process.pid, 'SIGTERM'));
}
