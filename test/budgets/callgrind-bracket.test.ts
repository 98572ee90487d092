import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
 * beside it (`.map`). Each run takes some 12 CPU seconds, nearly all Node's start under valgrind.
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
      // Every run alike: V8 writes its code map, kept with `keep`.
      ...codeMapFlags(dir),
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
    const main = keepMainThread(profile);
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
  const STEPS = 10_000_000;
  let dir: string;
  let profile: string;
  // Three runs for both tests, side by side: the first keeps its profile. Ten million steps
  // inside, some 270 million instructions; the bracket's own calls count 0.62 million on the main
  // thread, the same in every run (Node's other threads, once counted too, ran up to 57 million
  // more by the clock: keepMainThread).
  let small: number;
  let large: number;
  let aroundMore: number;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'spanscore-instr-profile-'));
    profile = join(dir, 'child.callgrind');
    [small, large, aroundMore] = await Promise.all([
      counted(2_000_000, STEPS, profile),
      counted(2_000_000, 2 * STEPS),
      counted(8_000_000, STEPS),
    ]);
  }, 300_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('counts the bracketed work, in proportion, and not the work around it', () => {
    // Twice the steps inside: twice the instructions, within 1% (each step a handful of them).
    expect(large / small).toBeGreaterThan(1.98);
    expect(large / small).toBeLessThan(2.02);
    // Four times the steps outside, the same inside: the same count, within 0.1%.
    expect(Math.abs(aroundMore / small - 1)).toBeLessThan(0.001);
    // Each step a few instructions, not the whole process (hundreds of millions for Node's start).
    expect(small / STEPS).toBeGreaterThan(2);
    expect(small / STEPS).toBeLessThan(60);
  });

  it('names the compiled JavaScript that ran the counted instructions (instructionProfile)', () => {
    // Per step of the bracketed loop, as the bench gives them per scored span.
    const { functions, stages } = instructionProfile(profile, STEPS);
    // The loop, V8's compiled code that callgrind sees as a bare address, is named from the
    // map: the child's code (the module's, `loop` inlined in it; its optimized and on-stack
    // replaced code are rows of their own), with most of the count.
    const child = functions.filter(r =>
      /^\S+ file:\/\/.*callgrind-bracket\.child\.ts:\d+:\d+$/.test(r.name),
    );
    expect(child.length).toBeGreaterThan(0);
    const childPerStep = child.reduce((n, r) => n + r.perSpan, 0);
    expect(childPerStep * STEPS).toBeGreaterThan(0.5 * small);
    expect(childPerStep).toBeGreaterThan(2);
    expect(childPerStep).toBeLessThan(60);
    // Every counted instruction is in a row (none dropped), JavaScript outside dist/ as such.
    const sum = functions.reduce((n, r) => n + r.perSpan * STEPS, 0);
    expect(Math.abs(sum / small - 1)).toBeLessThan(0.01);
    const outsideDist = stages.find(r => r.name === 'other JavaScript');
    expect(outsideDist?.share).toBeGreaterThan(0.5);
  });
});
