import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const CHILD = fileURLToPath(new URL('./callgrind-bracket.child.ts', import.meta.url));

/** Instructions callgrind counted in the child: `outside` steps around the bracket, `inside` in it. */
async function counted(outside: number, inside: number): Promise<number> {
  // valgrind missing rejects (ENOENT): .ci/run installs Debian's.
  const { stderr } = await promisify(execFile)(
    'valgrind',
    [
      '--tool=callgrind',
      '--instr-atstart=no',
      '--callgrind-out-file=/dev/null',
      process.execPath,
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
  const collected = /Collected\s*:\s*(\d+)/.exec(stderr);
  expect(collected, stderr).not.toBeNull();
  return Number(collected![1]);
}

/**
 * The instruction figure of `npm run bench` (bench/instructions-per-span.ts) counts what
 * `pipelineAllocation` does between the bracket's calls and nothing else: the process's start,
 * its module loading and the work before and after are not counted. Counted, not timed.
 */
describe('instructions per span: the callgrind bracket', () => {
  it('counts the bracketed work, in proportion, and not the work around it', async () => {
    const [small, large, aroundMore] = await Promise.all([
      counted(2_000_000, 2_000_000),
      counted(2_000_000, 4_000_000),
      counted(8_000_000, 2_000_000),
    ]);
    // Twice the steps inside: about twice the instructions (each step is a handful of them).
    expect(large / small).toBeGreaterThan(1.8);
    expect(large / small).toBeLessThan(2.2);
    // Four times the steps outside, the same inside: the same count, within 5%.
    expect(Math.abs(aroundMore / small - 1)).toBeLessThan(0.05);
    // Each step a few instructions, not the whole process (hundreds of millions for Node's start).
    expect(small / 2_000_000).toBeGreaterThan(2);
    expect(small / 2_000_000).toBeLessThan(60);
  });
}, 300_000);
