import type { MatcherState } from 'vitest';
import type { NormalizedTrace } from '../normalize/normalize-trace.js';
import { toolArguments } from '../score/deterministic/tool-arguments.js';
import type { ScoreResult } from '../score/score-result.js';
import { asTrace, report, type MatcherOutcome } from './matcher-report.js';

/**
 * `expect(run).toHaveValidToolArguments()`: every call's arguments match the JSON Schema of its
 * tool as offered to the model, and no call names a tool the model was not offered (the
 * `tool_arguments` scorer). A run whose trace records no schema to check against throws: that is
 * no pass, and no failure of the agent either.
 */
export function toHaveValidToolArguments(this: MatcherState, received: unknown): MatcherOutcome {
  const trace = asTrace(received, 'toHaveValidToolArguments');
  if (!Array.isArray((trace as Partial<NormalizedTrace>).spans))
    throw new TypeError(
      'toHaveValidToolArguments: expected a trace from captureTrace() (or a NormalizedTrace with its spans): the tools offered are read from them',
    );
  const result = toolArguments.score({
    trace: trace as NormalizedTrace,
    testCase: undefined,
    options: toolArguments.parseOptions({}),
    aliases: new Map(),
  }) as ScoreResult;
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
