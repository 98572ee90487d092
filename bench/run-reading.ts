/**
 * Runs the trace-reading bench alone and prints its result as JSON: `npm run bench` runs it in a
 * fresh process, so the decoders are compared on a heap the scoring bench (and the Mastra code it
 * loads) has not grown. `tsx bench/run-reading.ts ROUNDS`
 */
import { readingBench } from './reading-bench.js';

const rounds = Number(process.argv[2] ?? 5);
process.stdout.write(`${JSON.stringify(await readingBench(rounds))}\n`);
