import type { MatcherState } from 'vitest';
import { toolErrors, type FailedCallDetail } from '../score/deterministic/tool-errors.js';
import { asTrace, report, scoreWith, type MatcherOutcome } from './matcher-report.js';
import { forRuns, type RepeatOptions } from './repeat-runs.js';

/** Options of `toHaveNoToolErrors`. */
export interface NoToolErrorsOptions {
  /** Refused calls (the framework did not run them) count as errors too. @defaultValue true */
  refused?: boolean;
}

/**
 * `expect(run).toHaveNoToolErrors()`: no tool call of the run failed (the `tool_errors` scorer,
 * any failure fails) and, unless `{ refused: false }`, none was refused by the framework. A run
 * whose calls never ran has no error.
 */
function oneRun(
  this: MatcherState,
  received: unknown,
  options: NoToolErrorsOptions & RepeatOptions = {},
): MatcherOutcome {
  const trace = asTrace(received, 'toHaveNoToolErrors');
  const result = scoreWith(toolErrors, trace, {});
  const details = result.status === 'scored' ? result.details : {};
  const failed = (details.failedCalls ?? []) as FailedCallDetail[];
  const refused =
    options.refused === false
      ? []
      : trace.toolSequence
          .filter(c => c.outcome === 'refused')
          .map(c => ({ name: c.name, error: c.error ?? null }));
  const bad = [
    ...failed.map(c => `${c.name} failed: ${c.error ?? 'error'}`),
    ...refused.map(c => `${c.name} was refused: ${c.error ?? 'not run'}`),
  ];
  const pass = bad.length === 0;
  return {
    pass,
    message: () =>
      report(this, 'toHaveNoToolErrors', {
        claim: this.isNot
          ? 'Expected a tool call to fail or be refused'
          : 'Expected no tool call to fail or be refused',
        expected: undefined,
        actualLabel: 'Failed',
        actual: bad.length ? bad : ['(none)'],
        detail: result.status === 'failed' ? `error: ${result.error}` : result.reason,
        trace,
      }),
  };
}

export const toHaveNoToolErrors = forRuns(
  'toHaveNoToolErrors',
  oneRun,
  options => options?.minPassRate,
);
