import type { NormalizedTrace } from '../normalize/normalize-trace.js';
import type { ScoreResult } from './score-result.js';
import type { TestCase } from './test-case.js';

/** How a scorer produces its score. */
export type ScorerKind = 'deterministic' | 'llm' | 'custom';

/** What a scorer is given for one trace. */
export interface ScorerInput<Options = Record<string, unknown>> {
  trace: NormalizedTrace;
  /** The test case the trace belongs to; `undefined` when scored by a production rule. */
  testCase: TestCase | undefined;
  /** The scorer's options from the suite, validated by its `parseOptions`. */
  options: Options;
  /** Tool-name aliases (canonical → canonical) from the suite. */
  aliases: ReadonlyMap<string, string>;
}

/**
 * A scorer: a name, a kind, and a function from a trace (plus its test case) to a result.
 * `parseOptions` validates options once, when the suite is loaded, and throws a message naming
 * the bad option; `score` may then assume them valid.
 */
export interface Scorer<Options = Record<string, unknown>> {
  readonly name: string;
  readonly kind: ScorerKind;
  readonly description: string;
  /**
   * Raised when what the scorer judges changes under the same options (a rule of what counts as
   * failed, say), so that `scorerVersion`, and with it dashboards and `spanscore compare`, tell
   * results before and after the change apart. Absent: revision 1.
   */
  readonly revision?: number;
  parseOptions(options: Record<string, unknown>): Options;
  score(input: ScorerInput<Options>): ScoreResult | Promise<ScoreResult>;
}
