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
const bracket = callgrindBracket();
const before = loop(outside);
bracket.start();
const during = loop(inside);
bracket.stop();
const after = loop(outside);
process.stdout.write(`${before + during + after}\n`);
