import type { MatcherState } from 'vitest';
import type { ArgumentMode } from '../score/deterministic/compare-arguments.js';
import { toolTrajectory } from '../score/deterministic/tool-trajectory.js';
import type { ExpectedCall } from '../score/test-case.js';
import {
  aliasesOf,
  asTrace,
  json,
  reasonOf,
  report,
  scoreWith,
  type MatcherOutcome,
} from './matcher-report.js';
import { forRuns, type RepeatOptions } from './repeat-runs.js';

/**
 * One expected call of `toHaveCalledToolsInOrder`: a tool name, or a name with arguments and the
 * agent that must make it.
 */
export type ExpectedToolCall = string | { name: string; args?: unknown; agent?: string };

/** Options of `toHaveCalledToolsInOrder`. */
export interface ToolOrderOptions {
  /**
   * `exact` (default): the calls are exactly these, in this order, nothing else. `subsequence`:
   * these calls happen in this order, other calls may come between and around them.
   */
  match?: 'exact' | 'subsequence';
  /** How expected arguments compare with a call's (see `compareArguments`). @defaultValue 'subset' */
  args?: ArgumentMode;
  /** Tool-name aliases; default: those the trace was captured with. */
  aliases?: Record<string, string>;
}

/**
 * `expect(run).toHaveCalledToolsInOrder(calls)`: the calls match `calls` in order, `exact` or as a
 * `subsequence`: the `tool_trajectory` scorer's verdict.
 */
function oneRun(
  this: MatcherState,
  received: unknown,
  expectedCalls: readonly ExpectedToolCall[],
  options: ToolOrderOptions & RepeatOptions = {},
): MatcherOutcome {
  const trace = asTrace(received, 'toHaveCalledToolsInOrder');
  const calls: unknown = expectedCalls;
  if (!Array.isArray(calls))
    throw new TypeError('toHaveCalledToolsInOrder: expected an array of tool names or calls');
  const match = options.match ?? 'exact';
  if (match !== 'exact' && match !== 'subsequence')
    throw new TypeError(
      `toHaveCalledToolsInOrder: match must be 'exact' or 'subsequence', got ${JSON.stringify(match)}`,
    );
  const expected = (calls as unknown[]).map(asExpectedCall);
  const result = scoreWith(
    toolTrajectory,
    trace,
    {
      expectedCalls: expected,
      match: match === 'exact' ? 'exact' : 'in_order',
      args: options.args ?? 'subset',
    },
    aliasesOf(trace, options.aliases),
  );
  const pass = result.status === 'scored' && result.label === 'pass';
  const actual = trace.toolSequence.map(c => c.name);
  const how = match === 'exact' ? 'exactly, in this order' : 'in this order (a subsequence)';
  return {
    pass,
    actual,
    expected: expected.map(e => e.name),
    message: () =>
      report(this, 'toHaveCalledToolsInOrder', {
        claim: this.isNot ? `Expected the calls not to be ${how}` : `Expected the calls ${how}`,
        expected: expected.map(
          e =>
            `${e.args === undefined ? e.name : `${e.name}(${json(e.args)})`}${e.agent === undefined ? '' : ` by ${e.agent}`}`,
        ),
        actualLabel: 'Calls',
        actual,
        detail: pass ? undefined : reasonOf(result),
        trace,
      }),
  };
}

/** A name or `{ name, args?, agent? }` as a suite's expected call; anything else is refused. */
function asExpectedCall(c: unknown, i: number): ExpectedCall {
  if (typeof c === 'string') return { name: c };
  const call = c as { name?: unknown; args?: unknown; agent?: unknown } | null;
  if (
    call &&
    typeof call === 'object' &&
    typeof call.name === 'string' &&
    (call.agent === undefined || typeof call.agent === 'string')
  )
    return {
      name: call.name,
      ...(call.args !== undefined && { args: call.args }),
      ...(typeof call.agent === 'string' && { agent: call.agent }),
    };
  throw new TypeError(
    `toHaveCalledToolsInOrder: calls[${i}] is neither a name nor { name, args?, agent? }`,
  );
}

export const toHaveCalledToolsInOrder = forRuns(
  'toHaveCalledToolsInOrder',
  oneRun,
  (_calls, options) => options?.minPassRate,
);
