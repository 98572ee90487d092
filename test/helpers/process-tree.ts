import { readFileSync } from 'node:fs';

/**
 * The processes `pid` started (Linux: `/proc/<pid>/task/<pid>/children`; none elsewhere or once it
 * has exited). The memory driver's `serve` runs the service in such a child, with a bounded heap.
 */
export function childPids(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

/** The RSS of `pid` and every process below it, in MB (Linux). */
export function treeRssMb(pid: number): number {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]!;
  return Number(kb) / 1024 + childPids(pid).reduce((sum, child) => sum + treeRssMb(child), 0);
}
