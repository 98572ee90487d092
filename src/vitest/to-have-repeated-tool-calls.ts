import type { MatcherState } from 'vitest';
import { toolLoops } from '../score/deterministic/tool-loops.js';
import { DEFAULT_MIN_REPEATS } from '../normalize/find-repeated-calls.js';
import { asTrace, report, scoreWith, type MatcherOutcome } from './matcher-report.js';
import { forRuns, type RepeatOptions } from './repeat-runs.js';

/** Options of `toHaveRepeatedToolCalls`. */
export interface RepeatedToolCallsOptions {
  /** Identical calls that make a loop. @defaultValue 3 */
  minRepeats?: number;
}

/**
 * `expect(run).toHaveRepeatedToolCalls()`: some tool was called `minRepeats` times (default 3)
 * with the same arguments (the `tool_loops` scorer); mostly used as
 * `expect(run).not.toHaveRepeatedToolCalls()`, an agent that does not loop.
 */
function oneRun(
  this: MatcherState,
  received: unknown,
  options: RepeatedToolCallsOptions & RepeatOptions = {},
): MatcherOutcome {
  const trace = asTrace(received, 'toHaveRepeatedToolCalls');
  const result = scoreWith(
    toolLoops,
    trace,
    options.minRepeats === undefined ? {} : { minRepeats: options.minRepeats },
  );
  const repeated =
    result.status === 'scored'
      ? (result.details.repeatedCalls as Array<{ name: string; count: number }>)
      : [];
  const pass = repeated.length > 0;
  return {
    pass,
    message: () =>
      report(this, 'toHaveRepeatedToolCalls', {
        claim: this.isNot
          ? `Expected no call repeated ${options.minRepeats ?? DEFAULT_MIN_REPEATS} times with the same arguments`
          : `Expected a call repeated ${options.minRepeats ?? DEFAULT_MIN_REPEATS} times with the same arguments`,
        expected: undefined,
        actualLabel: 'Repeated',
        actual: pass ? repeated.map(r => `${r.name} ×${r.count}`) : ['(none)'],
        detail: result.status === 'failed' ? `error: ${result.error}` : result.reason,
        trace,
      }),
  };
}

export const toHaveRepeatedToolCalls = forRuns(
  'toHaveRepeatedToolCalls',
  oneRun,
  options => options?.minPassRate,
);
