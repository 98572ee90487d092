import type { ScoreResult } from './score-result.js';

/**
 * The agents a failing result blames, from the details the agent-aware scorers write: the agent
 * that made a call another agent should have made (`tool_trajectory`'s `wrongAgent`), the agent
 * that made a forbidden call, the source of a handoff that went the wrong way and an agent that
 * should not have taken control (`agent_routing`), the agent whose call failed or was refused, had
 * invalid arguments, named a tool never offered or repeated itself (`tool_errors`, `tool_arguments`,
 * `tool_loops`). Empty for a result that did not fail, or whose
 * failure names no agent. Deduped, in the order found.
 */
export function failingAgents(result: ScoreResult): string[] {
  if (result.status !== 'scored' || result.label !== 'fail') return [];
  const d = result.details;
  const out: string[] = [];
  // Indexed loops: `for…of` made an iterator and a result object a step here (about 30 heap bytes
  // a scored span, by a sampling heap profile of the allocation figure's workload).
  const wrong = list(d.wrongAgent);
  for (let i = 0; i < wrong.length; i++) add(out, (wrong[i] as { calledBy?: unknown }).calledBy);
  const forbidden = list(d.forbiddenAgents);
  for (let i = 0; i < forbidden.length; i++) add(out, forbidden[i]);
  const handoffs = list(d.handoffs);
  for (let i = 0; i < handoffs.length; i++) {
    const h = handoffs[i] as { expected?: unknown; from?: unknown };
    if (h.expected === false) add(out, h.from);
  }
  const unexpected = list(d.unexpectedAgents);
  for (let i = 0; i < unexpected.length; i++) add(out, unexpected[i]);
  for (let k = 0; k < CALL_LISTS.length; k++) {
    const calls = list(d[CALL_LISTS[k]!]);
    for (let i = 0; i < calls.length; i++) add(out, (calls[i] as { agent?: unknown }).agent);
  }
  return out;
}

/** The details' lists of calls, each naming the agent that made it. */
const CALL_LISTS = [
  'failedCalls',
  'refusedCalls',
  'invalidCalls',
  'unknownCalls',
  'repeatedCalls',
  'overLimit',
] as const;

/** Adds an agent's name to `out` once (a function, not a closure made a result). */
function add(out: string[], agent: unknown): void {
  if (typeof agent === 'string' && agent !== '' && !out.includes(agent)) out.push(agent);
}

const NONE: readonly unknown[] = [];

function list(value: unknown): readonly unknown[] {
  return Array.isArray(value) ? (value as unknown[]) : NONE;
}
