import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { childPids, treeRssMb } from './process-tree.js';

describe('process tree (the memory bounds of the abuse and bounded-heap tests read it)', () => {
  it('finds a child and counts its memory in the tree', async () => {
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], {
      stdio: 'ignore',
    });
    try {
      await new Promise(resolve => child.once('spawn', resolve));
      expect(childPids(process.pid)).toContain(child.pid);
      const own = /VmRSS:\s+(\d+) kB/.exec(
        (await import('node:fs')).readFileSync('/proc/self/status', 'utf8'),
      )![1]!;
      expect(treeRssMb(process.pid)).toBeGreaterThan(Number(own) / 1024);
    } finally {
      child.kill();
    }
  });

  it('throws, naming the file, when /proc cannot be read: never a tree of none', () => {
    const exited = 2 ** 22 + 12_345; // above Linux's largest pid (4,194,304)
    expect(() => childPids(exited)).toThrow(`cannot read /proc/${exited}/task/${exited}/children`);
    expect(() => treeRssMb(exited)).toThrow(`cannot read /proc/${exited}/status`);
  });
});
