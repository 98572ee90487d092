import { readFileSync } from 'node:fs';

/** Reads a file of `/proc`, or throws naming it: a test that cannot see the process must fail. */
function readProc(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new Error(
      `cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? String(error)}): these tests measure processes through Linux's /proc, and the process must still run`,
      { cause: error },
    );
  }
}

/**
 * The processes `pid` started (Linux: `/proc/<pid>/task/<pid>/children`). The memory driver's
 * `serve` runs the service in such a child, with a bounded heap. Throws when `/proc` cannot be
 * read (another OS, or the process has exited): never an empty list that would make a bound on the
 * tree's memory pass without measuring it.
 */
export function childPids(pid: number): number[] {
  return readProc(`/proc/${pid}/task/${pid}/children`)
    .trim()
    .split(/\s+/)
    .filter(Boolean)
    .map(Number);
}

/** The RSS of `pid` and every process below it, in MB (Linux; throws as {@link childPids}). */
export function treeRssMb(pid: number): number {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readProc(`/proc/${pid}/status`))?.[1];
  if (kb === undefined) throw new Error(`/proc/${pid}/status has no VmRSS line`);
  return Number(kb) / 1024 + childPids(pid).reduce((sum, child) => sum + treeRssMb(child), 0);
}
