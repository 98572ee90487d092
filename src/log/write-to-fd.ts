import { writeSync } from 'node:fs';

/** How long a write waits for a full pipe or terminal (`EAGAIN`) before trying again, in ms. */
const FULL_WAIT_MS = 5;
const sleeper = new Int32Array(new SharedArrayBuffer(4));

/**
 * Writes `text` whole to the file descriptor `fd` (1: stdout, 2: stderr) now, blocking this
 * thread while the reader is behind, as a process's own synchronous stdio does. For worker
 * threads: their `process.stderr` buffers what is written in the thread's heap until the main
 * thread takes it, so a stalled reader fills a bounded heap, and an out-of-heap end loses the
 * tail. A descriptor left non-blocking (`EAGAIN`) is waited on, a few ms at a time. A closed
 * reader (`EPIPE`) drops the text, as `bin.ts` stops quietly on it. Other errors are thrown.
 */
export function writeToFd(fd: number, text: string): void {
  let bytes = Buffer.from(text);
  while (bytes.length > 0) {
    try {
      bytes = bytes.subarray(writeSync(fd, bytes));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EPIPE') return;
      if (code !== 'EAGAIN') throw error;
      Atomics.wait(sleeper, 0, 0, FULL_WAIT_MS);
    }
  }
}
