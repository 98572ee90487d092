import type { TraceRun } from '../score/trace-run.js';
import { MAX_RESULTS_PER_RUN } from './stored-result.js';

/**
 * The rule for a trace's stored results after a pass, one for both stores: the judge pass (`llm`)
 * adds its results to those of the pass before it (the deterministic pass that deferred its
 * scorers); any other pass (the first, a retry, a rescore after late spans) replaces them.
 */
export function addsToStoredResults(run: Pick<TraceRun, 'phase'>): boolean {
  return run.phase === 'llm';
}

/** The results a run record keeps: the newest {@link MAX_RESULTS_PER_RUN}, newest last. */
export function keptRunResults<T>(results: readonly T[]): T[] {
  return results.slice(-MAX_RESULTS_PER_RUN);
}

/**
 * A trace's stored results after `run`'s pass wrote `written` (see {@link addsToStoredResults}):
 * `written` itself, or `stored` (the results before the pass) and then `written`, the newest kept.
 */
export function mergeRunResults<T>(
  run: Pick<TraceRun, 'phase'>,
  stored: readonly T[],
  written: T[],
): T[] {
  if (!addsToStoredResults(run) || stored.length === 0) return written;
  return keptRunResults([...stored, ...written]);
}
