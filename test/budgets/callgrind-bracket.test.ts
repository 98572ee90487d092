import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  callgrindFlags,
  codeMapFlags,
  codeMapOf,
  instructionProfile,
  keepMainThread,
} from '../../bench/instruction-profile.js';

const CHILD = fileURLToPath(new URL('./callgrind-bracket.child.ts', import.meta.url));

/**
 * Instructions callgrind counted on the child's main thread: `outside` steps around the bracket,
 * `inside` in it. With `keep`, callgrind's profile of that thread is kept there and V8's code map
 * beside it (`.map`).
 */
async function counted(outside: number, inside: number, keep?: string): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'spanscore-bracket-'));
  const profile = join(dir, 'child.callgrind');
  // valgrind missing rejects (ENOENT): .ci/run installs Debian's.
  const run = promisify(execFile)(
    'valgrind',
    [
      ...callgrindFlags(profile),
      process.execPath,
      '--expose-gc',
      ...(keep ? codeMapFlags(dir) : []),
      '--single-threaded',
      '--predictable',
      '--import',
      'tsx',
      CHILD,
      String(outside),
      String(inside),
    ],
    { encoding: 'utf8', timeout: 120_000 },
  );
  const map = codeMapOf(run.child.pid);
  try {
    await run;
    const { main } = keepMainThread(profile);
    if (keep) {
      copyFileSync(profile, keep);
      copyFileSync(map, `${keep}.map`);
    }
    return main;
  } finally {
    rmSync(map, { force: true });
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The instruction figure of `npm run bench` (bench/instructions-per-span.ts) counts what
 * `pipelineAllocation` does between the bracket's calls and nothing else: the process's start,
 * its module loading and the work before and after are not counted. Counted, not timed.
 */
describe('instructions per span: the callgrind bracket', () => {
  it('counts the bracketed work, in proportion, and not the work around it', async () => {
    // Ten million steps inside (some 270 million instructions): the bracket's own calls count
    // 0.6 to 1.3 million around them, and an unlucky collection more; with 2 million steps (55
    // million instructions) twice the steps once counted 1.7 times the instructions.
    const [small, large, aroundMore] = await Promise.all([
      counted(2_000_000, 10_000_000),
      counted(2_000_000, 20_000_000),
      counted(8_000_000, 10_000_000),
    ]);
    // Twice the steps inside: about twice the instructions (each step is a handful of them).
    expect(large / small).toBeGreaterThan(1.8);
    expect(large / small).toBeLessThan(2.2);
    // Four times the steps outside, the same inside: the same count, within 5%.
    expect(Math.abs(aroundMore / small - 1)).toBeLessThan(0.05);
    // Each step a few instructions, not the whole process (hundreds of millions for Node's start).
    expect(small / 10_000_000).toBeGreaterThan(2);
    expect(small / 10_000_000).toBeLessThan(60);
  });

  it('names the compiled JavaScript that ran the counted instructions (instructionProfile)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'spanscore-instr-profile-'));
    try {
      const profile = join(dir, 'child.callgrind');
      const total = await counted(1_000_000, 2_000_000, profile);
      // Per step of the bracketed loop, as the bench gives them per scored span.
      const { functions, stages } = instructionProfile(profile, 2_000_000);
      // The loop, V8's compiled code that callgrind sees as a bare address, is named from the
      // map: the child's code (the module's, `loop` inlined in it; its optimized and on-stack
      // replaced code are rows of their own), with most of the count.
      const child = functions.filter(r =>
        /^\S+ file:\/\/.*callgrind-bracket\.child\.ts:\d+:\d+$/.test(r.name),
      );
      expect(child.length).toBeGreaterThan(0);
      const childPerStep = child.reduce((n, r) => n + r.perSpan, 0);
      expect(childPerStep * 2_000_000).toBeGreaterThan(0.5 * total);
      expect(childPerStep).toBeGreaterThan(2);
      expect(childPerStep).toBeLessThan(60);
      // Every counted instruction is in a row (none dropped), JavaScript outside dist/ as such.
      const sum = functions.reduce((n, r) => n + r.perSpan * 2_000_000, 0);
      expect(Math.abs(sum / total - 1)).toBeLessThan(0.01);
      const outsideDist = stages.find(r => r.name === 'other JavaScript');
      expect(outsideDist?.share).toBeGreaterThan(0.5);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}, 300_000);
