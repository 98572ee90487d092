/**
 * The entry of the thread `serve` runs its service in under a heap bound (see
 * `runWithBoundedHeap`): the same command line, run again in this thread, whose V8 isolate the
 * parent thread started with `resourceLimits`.
 *
 * Contract: `workerData` is `{ argv }`, the command line to run. A message `{ signal }` from the
 * parent is the process's SIGINT or SIGTERM, which Node delivers to the main thread only: it is
 * emitted on this thread's `process`, where `untilShutdown` listens for it once the service is
 * ready. Before that nothing listens, and the signal does what it does to a process without a
 * handler: it ends this thread at once, with 128 + its number; after the shutdown a signal ran,
 * one more is ignored. The command writes to the process's stdout and stderr directly
 * (`writeToFd`), never through buffers in this thread's heap. Its exit code is the thread's: a
 * failed command ends the thread at once; after a clean one, handles left open get two seconds,
 * as `bin.ts` gives them.
 */
import { constants } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import type { CliIo } from './io.js';
import { writeToFd } from '../log/write-to-fd.js';
import { main } from './main.js';

const { argv } = workerData as { argv: string[] };

/**
 * Writes straight to the process's file descriptor, as a process of its own would: a thread's
 * `process.stderr` is buffered in its heap until the main thread takes it, so a stalled reader
 * (`serve 2>&1 | less`, a paused terminal) would fill the bounded heap with log lines, and what
 * an out-of-heap end cut short was lost. Blocking on a full pipe stalls this thread instead.
 */
const direct = (fd: number): CliIo['stderr'] => ({
  write: (chunk: string) => writeToFd(fd, chunk),
});
const io: CliIo = { stdout: direct(1), stderr: direct(2) };

// Whether a signal found the service listening: after its shutdown, one more (a supervisor's
// second SIGTERM, `timeout` signalling its group) finds none and is let be.
let handled = false;
parentPort!.on('message', (message: { signal?: 'SIGINT' | 'SIGTERM' }) => {
  const { signal } = message;
  if (!signal) return;
  if (process.listenerCount(signal) > 0) {
    handled = true;
    process.emit(signal, signal);
    return;
  }
  if (handled) return;
  io.stderr.write(`spanscore: ${signal} while the service was not running: stopped\n`);
  process.exit(128 + constants.signals[signal]);
});
// The channel to the parent never keeps this thread alive: the service's own handles do.
parentPort!.unref();

const code = await main(argv, io);
// A failed command (a second Ctrl-C's "exiting now") ends at once; a clean one gives the handles
// something left open two seconds.
if (code !== 0) process.exit(code);
setTimeout(() => process.exit(code), 2000).unref();
process.exitCode = code;
