/**
 * The entry of the thread `serve` runs its service in under a heap bound (see
 * `runWithBoundedHeap`): the same command line, run again in this thread, whose V8 isolate the
 * parent thread started with `resourceLimits`.
 *
 * Contract: `workerData` is `{ argv }`, the command line to run. A message `{ signal }` from the
 * parent is the process's SIGINT or SIGTERM, which Node delivers to the main thread only: it is
 * emitted on this thread's `process`, where `untilShutdown` listens for it. The command's exit
 * code is the thread's; handles left open get two seconds, as `bin.ts` gives them.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { main } from './main.js';

const { argv } = workerData as { argv: string[] };

parentPort!.on('message', (message: { signal?: NodeJS.Signals }) => {
  if (message.signal) process.emit(message.signal, message.signal);
});
// The channel to the parent never keeps this thread alive: the service's own handles do.
parentPort!.unref();

const code = await main(argv);
setTimeout(() => process.exit(code), 2000).unref();
process.exitCode = code;
