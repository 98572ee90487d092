import type { MatcherState } from 'vitest';
import { toolCorrectness } from '../score/deterministic/tool-correctness.js';
import {
  aliasesOf,
  asTrace,
  reasonOf,
  report,
  scoreWith,
  type MatcherOutcome,
} from './matcher-report.js';
import { forRuns, type RepeatOptions } from './repeat-runs.js';

/** Options of `toHaveUsedTools`. */
export interface UsedToolsOptions {
  /** Tool-name aliases (`{ alias: canonical }`); default: those the trace was captured with. */
  aliases?: Record<string, string>;
}

/**
 * `expect(run).toHaveUsedTools(names)`: the tools used, as a set (order and repeats ignored), are
 * exactly `names`: the `tool_correctness` scorer's verdict.
 */
function oneRun(
  this: MatcherState,
  received: unknown,
  expectedNames: readonly string[],
  options: UsedToolsOptions & RepeatOptions = {},
): MatcherOutcome {
  const trace = asTrace(received, 'toHaveUsedTools');
  const names: unknown = expectedNames;
  if (!Array.isArray(names) || !names.every((n): n is string => typeof n === 'string'))
    throw new TypeError('toHaveUsedTools: expected an array of tool names');
  const result = scoreWith(
    toolCorrectness,
    trace,
    { expectedTools: [...names] },
    aliasesOf(trace, options.aliases),
  );
  const pass = result.status === 'scored' && result.label === 'pass';
  const actual = trace.toolsUsed;
  return {
    pass,
    actual,
    expected: [...names],
    message: () =>
      report(this, 'toHaveUsedTools', {
        claim: this.isNot
          ? 'Expected the tools used not to be exactly (as a set)'
          : 'Expected the tools used to be exactly (as a set)',
        expected: [...names],
        actualLabel: 'Tools used',
        actual,
        detail: pass ? undefined : reasonOf(result),
        trace,
      }),
  };
}

export const toHaveUsedTools = forRuns(
  'toHaveUsedTools',
  oneRun,
  (_names, options) => options?.minPassRate,
);
