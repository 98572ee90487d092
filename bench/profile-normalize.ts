/**
 * Profiling driver for the normalize hot path (not part of `npm run bench`):
 *   node --cpu-prof --import tsx bench/profile-normalize.ts
 * Prints µs per trace for normalizeTrace on the bench's generated cases (CASES, ROUNDS env vars).
 * For a figure that machine load cannot move, count instructions instead:
 *   CASES=2000 ROUNDS=3 valgrind --tool=callgrind --callgrind-out-file=/dev/null node --import tsx bench/profile-normalize.ts
 */
import { normalizeTrace } from '../src/normalize/normalize-trace.js';
import { generateCases, spansFor } from './scoring-cases.js';

const all = generateCases(Number(process.env.CASES ?? 10_000)).map(spansFor);
for (const spans of all) normalizeTrace('warm', spans);
// Min and median of 15 rounds: on a shared machine the minimum is the least disturbed figure.
const perTrace: number[] = [];
for (let r = 0; r < Number(process.env.ROUNDS ?? 15); r++) {
  const t0 = performance.now();
  for (const spans of all) normalizeTrace('x', spans);
  perTrace.push(((performance.now() - t0) / all.length) * 1000);
}
perTrace.sort((a, b) => a - b);
console.log(
  `normalizeTrace: min ${perTrace[0]!.toFixed(2)} µs, median ${perTrace[perTrace.length >> 1]!.toFixed(2)} µs per trace`,
);
