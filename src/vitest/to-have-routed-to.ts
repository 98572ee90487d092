import type { MatcherState } from 'vitest';
import { agentRouting } from '../score/deterministic/agent-routing.js';
import { asTrace, reasonOf, report, scoreWith, type MatcherOutcome } from './matcher-report.js';
import { forRuns, type RepeatOptions } from './repeat-runs.js';

/** Options of `toHaveRoutedTo`. */
export interface RoutedToOptions {
  /** How the route compares with `agents` (see the `agent_routing` scorer). @defaultValue 'exact' */
  match?: 'exact' | 'in_order' | 'any_order';
  /** `count`: a return to an earlier agent is a step too. @defaultValue 'ignore' */
  returns?: 'ignore' | 'count';
}

/**
 * `expect(run).toHaveRoutedTo(agents)`: the agents took control in this order (the trace's route):
 * the `agent_routing` scorer's verdict.
 */
function oneRun(
  this: MatcherState,
  received: unknown,
  agents: readonly string[],
  options: RoutedToOptions & RepeatOptions = {},
): MatcherOutcome {
  const trace = asTrace(received, 'toHaveRoutedTo');
  const given: unknown = agents;
  if (!Array.isArray(given) || given.some((a: unknown) => typeof a !== 'string' || a === ''))
    throw new TypeError('toHaveRoutedTo: expected an array of agent names');
  const result = scoreWith(agentRouting, trace, {
    expectedAgents: agents,
    ...(options.match && { match: options.match }),
    ...(options.returns && { returns: options.returns }),
  });
  const pass = result.status === 'scored' && result.label === 'pass';
  const route = trace.agents.map(t => t.agent);
  return {
    pass,
    actual: route,
    expected: [...agents],
    message: () =>
      report(this, 'toHaveRoutedTo', {
        claim: `Expected the route ${this.isNot ? 'not ' : ''}to be ${agents.join(' → ')} (${options.match ?? 'exact'})`,
        expected: [...agents],
        actualLabel: 'Route',
        actual: route,
        detail: pass ? undefined : reasonOf(result),
        trace,
      }),
  };
}

export const toHaveRoutedTo = forRuns(
  'toHaveRoutedTo',
  oneRun,
  (_agents, options) => options?.minPassRate,
);
