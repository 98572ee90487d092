import { isSpanscoreError } from '../errors/spanscore-error.js';
import type { NormalizedTrace } from '../normalize/normalize-trace.js';
import type { Scorer, ScorerKind } from './scorer.js';
import { skipped, type ScoreResult } from './score-result.js';
import type { TestCase } from './test-case.js';

/** A scorer with its options already validated. */
export interface ResolvedScorer {
  scorer: Scorer<unknown>;
  options: unknown;
}

/** One scorer's outcome on one trace. */
export interface ScorerOutcome {
  scorer: string;
  kind: ScorerKind;
  result: ScoreResult;
}

/**
 * Runs each scorer on the trace. A scorer that throws gives a `failed` result with the error's
 * message (`SS_JUDGE_BUDGET_EXHAUSTED` gives `skipped`, with the reason); it never stops the
 * others, unless `propagate` returns true for the error: then it rejects with it (the BullMQ judge
 * worker does this with retryable judge errors, to retry the job or pause its queue). Results come
 * back in the scorers' order.
 */
export async function runScorers(
  trace: NormalizedTrace,
  testCase: TestCase | undefined,
  scorers: readonly ResolvedScorer[],
  aliases: ReadonlyMap<string, string>,
  propagate?: (error: unknown) => boolean,
): Promise<ScorerOutcome[]> {
  const out: ScorerOutcome[] = [];
  for (const { scorer, options } of scorers) {
    let result: ScoreResult;
    try {
      result = await scorer.score({ trace, testCase, options, aliases });
    } catch (error) {
      if (propagate?.(error)) throw error;
      const e = error instanceof Error ? error : new Error(String(error));
      if (isSpanscoreError(e) && e.code === 'SS_JUDGE_BUDGET_EXHAUSTED')
        result = skipped(e.message);
      // A SpanscoreError's code (SS_JUDGE_UNAVAILABLE, …) says more than its class name.
      else
        result = {
          status: 'failed',
          error: e.message,
          errorType: isSpanscoreError(e) ? e.code : e.name || 'Error',
        };
    }
    out.push({ scorer: scorer.name, kind: scorer.kind, result });
  }
  return out;
}
