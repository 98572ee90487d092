/**
 * The entry of the thread `serve` runs its service in under a heap bound (see
 * `runWithBoundedHeap`): the same command line, run again in this thread, whose V8 isolate the
 * parent thread started with `resourceLimits`.
 *
 * Contract: `workerData` is `{ argv }`, the command line to run. A message `{ signal }` from the
 * parent is the process's SIGINT or SIGTERM, which Node delivers to the main thread only: it is
 * emitted on this thread's `process`, where `untilShutdown` listens for it once the service is
 * ready. Before that (or after the shutdown it ran), nothing listens, and the signal does what it
 * does to a process without a handler: it ends this thread at once, with 128 + its number. The
 * command's exit code is the thread's; handles left open get two seconds, as `bin.ts` gives them.
 */
import { constants } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { main } from './main.js';

const { argv } = workerData as { argv: string[] };

parentPort!.on('message', (message: { signal?: 'SIGINT' | 'SIGTERM' }) => {
  const { signal } = message;
  if (!signal) return;
  if (process.listenerCount(signal) > 0) {
    process.emit(signal, signal);
    return;
  }
  process.stderr.write(`spanscore: ${signal} while the service was not running: stopped\n`);
  process.exit(128 + constants.signals[signal]);
});
// The channel to the parent never keeps this thread alive: the service's own handles do.
parentPort!.unref();

const code = await main(argv);
setTimeout(() => process.exit(code), 2000).unref();
process.exitCode = code;
