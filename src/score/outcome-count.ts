import type { TraceRun } from './trace-run.js';

/**
 * How many scorer outcomes a run holds, over all its results: the size of an array of one item
 * an outcome (evaluation spans, stored results), made once rather than grown from empty (an
 * empty array's first push made room for 17 items). Pure.
 */
export function outcomeCount(run: Pick<TraceRun, 'results'>): number {
  let n = 0;
  for (let i = 0; i < run.results.length; i++) n += run.results[i]!.outcomes.length;
  return n;
}
