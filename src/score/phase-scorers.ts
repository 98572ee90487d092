import type { ResolvedScorer } from './run-scorers.js';
import type { ScoringPhase } from './trace-run.js';

/**
 * The scorers of a target a pass runs (`selected`), and, in the `deterministic` phase, the LLM
 * scorers it leaves for the judge pass (`deferred`, by name).
 */
export function phaseScorers(
  scorers: readonly ResolvedScorer[],
  phase: ScoringPhase,
): { selected: readonly ResolvedScorer[]; deferred: string[] } {
  return {
    selected:
      phase === 'all'
        ? scorers
        : scorers.filter(s => (s.scorer.kind === 'llm') === (phase === 'llm')),
    deferred:
      phase === 'deterministic'
        ? scorers.filter(s => s.scorer.kind === 'llm').map(s => s.scorer.name)
        : [],
  };
}
