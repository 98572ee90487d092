import { forgetCallSourceTexts } from '../normalize/content-attribute.js';
import type { NormalizedTrace } from '../normalize/normalize-trace.js';
import type { Scorer, ScorerKind } from './scorer.js';
import { scored, type ScoreResult } from './score-result.js';
import type { TestCase } from './test-case.js';

/** What a custom scorer function may return. */
export type CustomScoreOutput =
  | number
  | boolean
  | ScoreResult
  | { score: number; reason?: string; details?: Record<string, unknown> };

/** The definition passed to {@link defineScorer}. */
export interface CustomScorerDefinition {
  /** The name suites use to refer to the scorer. Must not clash with a built-in scorer. */
  name: string;
  /** Defaults to `custom`. */
  kind?: ScorerKind;
  description?: string;
  /** Score at or above which the label is `pass`; the suite's `threshold` option overrides it. Default 0.5. */
  threshold?: number;
  /**
   * Scores one trace. Return a number in 0..1, a boolean (1 or 0), `{ score, reason?, details? }`,
   * or a full `ScoreResult` (to skip or fail explicitly). A throw becomes a `failed` result.
   */
  score(
    trace: NormalizedTrace,
    testCase: TestCase | undefined,
    options: Record<string, unknown>,
  ): CustomScoreOutput | Promise<CustomScoreOutput>;
}

const BRAND = Symbol.for('spanscore.scorer');

/**
 * Defines a custom scorer for a suite's `customScorers` modules.
 *
 * @example
 * ```ts
 * import { defineScorer } from 'spanscore';
 * export default defineScorer({
 *   name: 'no_tool_errors',
 *   score: trace => trace.toolSequence.every(call => call.status === 'ok'),
 * });
 * ```
 */
export function defineScorer(definition: CustomScorerDefinition): Scorer {
  if (typeof definition.name !== 'string' || !/^[A-Za-z][\w.-]*$/.test(definition.name)) {
    throw new TypeError(
      `defineScorer: name must start with a letter and contain only letters, digits, "_", "." or "-", got ${JSON.stringify(definition.name)}`,
    );
  }
  if (typeof definition.score !== 'function')
    throw new TypeError(`defineScorer(${definition.name}): score must be a function`);
  const defaultThreshold = definition.threshold ?? 0.5;
  const scorer: Scorer & { [BRAND]: true } = {
    [BRAND]: true,
    name: definition.name,
    kind: definition.kind ?? 'custom',
    description: definition.description ?? `custom scorer ${definition.name}`,
    parseOptions(options) {
      const threshold = options.threshold;
      if (
        threshold !== undefined &&
        (typeof threshold !== 'number' || threshold < 0 || threshold > 1)
      ) {
        throw new Error('option "threshold": expected a number from 0 to 1');
      }
      return options;
    },
    async score({ trace, testCase, options }) {
      // The scorer may change the calls' arguments and results in place (to redact them, say):
      // stores then write the values as changed, not the texts they were parsed from.
      forgetCallSourceTexts(trace.toolSequence);
      const threshold =
        typeof options.threshold === 'number' ? options.threshold : defaultThreshold;
      return toResult(await definition.score(trace, testCase, options), threshold, definition.name);
    },
  };
  return scorer;
}

/** True for a value made by {@link defineScorer}. */
export function isDefinedScorer(value: unknown): boolean {
  return (value as { [BRAND]?: boolean } | null)?.[BRAND] === true;
}

/** True for a value made by {@link defineScorer} (or any object with the scorer shape). */
export function isScorer(value: unknown): value is Scorer {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Partial<Scorer> & { [BRAND]?: boolean };
  return (
    v[BRAND] === true ||
    (typeof v.name === 'string' &&
      typeof v.score === 'function' &&
      typeof v.parseOptions === 'function')
  );
}

function toResult(output: CustomScoreOutput, threshold: number, name: string): ScoreResult {
  if (typeof output === 'boolean')
    return scored(output ? 1 : 0, threshold, output ? 'passed' : 'failed');
  if (typeof output === 'number')
    return scored(checkScore(output, name), threshold, `score ${output}`);
  if (output && typeof output === 'object' && 'status' in output) {
    if (output.status === 'scored') return { ...output, score: checkScore(output.score, name) };
    if (output.status === 'skipped' || output.status === 'failed') return output;
  }
  if (output && typeof output === 'object' && 'score' in output) {
    return scored(
      checkScore(output.score, name),
      threshold,
      output.reason ?? `score ${output.score}`,
      output.details ?? {},
    );
  }
  throw new TypeError(
    `custom scorer ${name} returned ${JSON.stringify(output)}; expected a number, a boolean or { score }`,
  );
}

function checkScore(score: unknown, name: string): number {
  if (typeof score !== 'number' || !Number.isFinite(score) || score < 0 || score > 1) {
    throw new RangeError(
      `custom scorer ${name} returned score ${String(score)}; scores must be numbers from 0 to 1`,
    );
  }
  return score;
}
