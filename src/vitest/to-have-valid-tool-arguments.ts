import type { MatcherState } from 'vitest';
import { toolArguments } from '../score/deterministic/tool-arguments.js';
import { asTrace, report, scoreWith, type MatcherOutcome } from './matcher-report.js';
import { forRuns, type RepeatOptions } from './repeat-runs.js';

/**
 * `expect(run).toHaveValidToolArguments()`: every call's arguments match the JSON Schema of its
 * tool as offered to the model, and no call names a tool the model was not offered (the
 * `tool_arguments` scorer). A run whose trace records no schema to check against throws: that is
 * no pass, and no failure of the agent either.
 */
function oneRun(this: MatcherState, received: unknown, _repeat?: RepeatOptions): MatcherOutcome {
  const trace = asTrace(received, 'toHaveValidToolArguments');
  const result = scoreWith(toolArguments, trace, {});
  if (result.status !== 'scored')
    throw new Error(
      `toHaveValidToolArguments: nothing to check: ${result.status === 'skipped' ? result.reason : result.error}`,
    );
  const invalid = (result.details.invalidCalls ?? []) as Array<{
    name: string;
    problems: string[];
  }>;
  const unknown = (result.details.unknownCalls ?? []) as Array<{ name: string }>;
  const pass = result.label === 'pass';
  return {
    pass,
    message: () =>
      report(this, 'toHaveValidToolArguments', {
        claim: this.isNot
          ? 'Expected a call with invalid arguments, or to a tool never offered'
          : "Expected every call's arguments to match its tool's schema, and every tool to be offered",
        expected: undefined,
        actualLabel: 'Invalid',
        actual: pass
          ? ['(none)']
          : [
              ...invalid.map(c => `${c.name}: ${c.problems.join('; ')}`),
              ...unknown.map(c => `${c.name}: not offered`),
            ],
        detail: result.reason,
        trace,
      }),
  };
}

export const toHaveValidToolArguments = forRuns(
  'toHaveValidToolArguments',
  oneRun,
  repeat => repeat?.minPassRate,
);
