/** `pass` when the score reaches the scorer's threshold, else `fail`. */
export type ScoreLabel = 'pass' | 'fail';

/** A number was computed. `details` holds what the scorer compared, for reports and spans. */
export interface ScoredResult {
  status: 'scored';
  score: number;
  label: ScoreLabel;
  reason: string;
  details: Record<string, unknown>;
}

/** Nothing to compare against (no expectation, no ground truth). Never reported as a number. */
export interface SkippedResult {
  status: 'skipped';
  reason: string;
}

/** The scorer could not produce a score. Never reported as a number. */
export interface FailedResult {
  status: 'failed';
  error: string;
  /** A short error class, written as `error.type` on evaluation spans. */
  errorType: string;
}

/** What every scorer returns. */
export type ScoreResult = ScoredResult | SkippedResult | FailedResult;

/** Builds a scored result, labelling it against `threshold`. */
export function scored(
  score: number,
  threshold: number,
  reason: string,
  details: Record<string, unknown> = {},
): ScoredResult {
  return { status: 'scored', score, label: score >= threshold ? 'pass' : 'fail', reason, details };
}

/** Builds a skipped result. */
export function skipped(reason: string): SkippedResult {
  return { status: 'skipped', reason };
}

/** Rounds to two decimals the way Mastra does (`Math.round((x + EPSILON) * 100) / 100`). */
export function round2(x: number): number {
  return Math.round((x + Number.EPSILON) * 100) / 100;
}
