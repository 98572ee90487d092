import type { MatcherState } from 'vitest';
import { compareArguments } from '../score/deterministic/compare-arguments.js';
import { AGENT_SPANS_HINT } from '../score/deterministic/explain-trajectory.js';
import { toolTrajectory } from '../score/deterministic/tool-trajectory.js';
import { nameKey } from '../score/name-key.js';
import type { ToolCall } from '../normalize/tool-call.js';
import {
  aliasesOf,
  asTrace,
  json,
  report,
  scoreWith,
  sequence,
  type MatchedTrace,
  type MatcherOutcome,
} from './matcher-report.js';
import { forRuns, type RepeatOptions } from './repeat-runs.js';

/**
 * The second argument of `toHaveCalledTool` when it names the agent: `{ agent }`, or
 * `{ agent, args }`. Any other value is the arguments expected.
 */
export interface CalledByAgent {
  agent: string;
  args?: unknown;
}

/**
 * `expect(run).toHaveCalledTool(name, args?)`: some call of `name` had arguments containing `args`
 * (a deep subset), by `agent` when `{ agent, args? }` is given: the verdict of `tool_trajectory`
 * expecting that one call as a subsequence of the calls, with arguments as a subset.
 */
function oneRun(
  this: MatcherState,
  received: unknown,
  name: string,
  argsOrAgent?: unknown,
  _repeat?: RepeatOptions,
): MatcherOutcome {
  const trace = asTrace(received, 'toHaveCalledTool');
  if (typeof name !== 'string' || name === '')
    throw new TypeError('toHaveCalledTool: expected a tool name');
  const byAgent = asCalledByAgent(argsOrAgent);
  const agent = byAgent?.agent;
  const args = byAgent ? byAgent.args : argsOrAgent;
  const aliases = aliasesOf(trace, undefined);
  const result = scoreWith(
    toolTrajectory,
    trace,
    {
      expectedCalls: [
        { name, ...(args !== undefined && { args }), ...(agent !== undefined && { agent }) },
      ],
      match: 'in_order',
      args: 'subset',
    },
    aliases,
  );
  const pass = result.status === 'scored' && result.label === 'pass';
  const shown = `${args === undefined ? name : `${name}(${json(args)})`}${agent === undefined ? '' : ` by ${agent}`}`;
  const subset = args === undefined ? '' : ' (arguments as a subset)';
  return {
    pass,
    message: () =>
      report(this, 'toHaveCalledTool', {
        claim: `Expected ${this.isNot ? 'no call' : 'a call'} of ${shown}${subset}`,
        expected: [name],
        actualLabel: 'Tools called',
        actual: trace.toolSequence.map(c => c.name),
        detail: explain(trace, aliases, name, agent, args, pass),
        trace,
        diff: false,
      }),
  };
}

/**
 * What the failure message says of the calls of `name`: the scorer gave the verdict; this only
 * lists the calls it was about (all of them, by another agent, or with other arguments).
 */
function explain(
  trace: MatchedTrace,
  aliases: ReadonlyMap<string, string>,
  name: string,
  agent: string | undefined,
  args: unknown,
  pass: boolean,
): string {
  const key = nameKey(true, aliases);
  const named = trace.toolSequence.filter(c => key.call(c) === key.expected(name));
  const agentOf = (c: ToolCall): string | undefined => c.agent ?? trace.agentName;
  const calls = agent === undefined ? named : named.filter(c => agentOf(c) === agent);
  if (pass) {
    const hits =
      args === undefined
        ? calls
        : calls.filter(c => compareArguments(args, c.arguments, 'subset') === 1);
    return `matching call${hits.length > 1 ? 's' : ''}: ${sequence(hits)}`;
  }
  if (named.length === 0) return `${name} was never called`;
  // A trace with no agent spans says so, not "called by no agent": the agent cannot be checked.
  if (calls.length === 0 && trace.agents.length === 0 && named.every(c => agentOf(c) === undefined))
    return `${name} was called, but the trace records no agents, so the agent (${agent}) cannot be checked; ${AGENT_SPANS_HINT}`;
  if (calls.length === 0)
    return `${name} was called by ${[...new Set(named.map(c => agentOf(c) ?? 'no agent'))].join(', ')}, not by ${agent}`;
  return `${calls.length} call${calls.length > 1 ? 's' : ''} of ${name}${agent === undefined ? '' : ` by ${agent}`}, none with arguments containing ${json(args)}: ${sequence(calls)}`;
}

/** `{ agent }` or `{ agent, args }`: the second argument of `toHaveCalledTool` naming the agent. */
function asCalledByAgent(value: unknown): CalledByAgent | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const keys = Object.keys(value);
  const agent = (value as { agent?: unknown }).agent;
  return typeof agent === 'string' && keys.every(k => k === 'agent' || k === 'args')
    ? (value as CalledByAgent)
    : undefined;
}

export const toHaveCalledTool = forRuns(
  'toHaveCalledTool',
  oneRun,
  (_name, _args, repeat) => repeat?.minPassRate,
);
