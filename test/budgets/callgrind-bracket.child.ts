/**
 * Run under callgrind with counting off (`--instr-atstart=no`): `OUTSIDE` loop steps before the
 * bracket, `INSIDE` between {@link callgrindBracket}'s calls, `OUTSIDE` again after. Prints the
 * sums (so the loops are not optimized away).
 */
import { callgrindBracket } from '../../bench/instructions-per-span.js';

const [outside, inside] = process.argv.slice(2).map(Number) as [number, number];
const loop = (n: number): number => {
  let sum = 0;
  for (let i = 0; i < n; i++) sum = (sum + i * 7) % 1_000_003;
  return sum;
};
// Many short calls first, so that `loop` itself is compiled by V8's optimizing compiler before
// the bracket: after one long call only its loop was (on-stack replacement), and the compile of
// the function could land inside the bracket, a fixed ten million instructions or so that made
// twice the steps count 1.7 times the instructions in one CI run.
let warm = 0;
for (let i = 0; i < 2_000; i++) warm += loop(1_000);
// And a full collection now (the test runs Node with --expose-gc), so that none falls due inside
// the bracket: what the module loading on tsx's loader thread allocated differs a little from
// run to run, and a major collection is millions of instructions.
(globalThis as { gc?: () => void }).gc!();
const bracket = callgrindBracket();
const before = loop(outside) + (warm % 2);
bracket.start();
const during = loop(inside);
bracket.stop();
const after = loop(outside);
process.stdout.write(`${before + during + after}\n`);
