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
  for (const w of list(d.wrongAgent)) add(out, (w as { calledBy?: unknown }).calledBy);
  for (const f of list(d.forbiddenAgents)) add(out, f);
  for (const h of list(d.handoffs))
    if ((h as { expected?: unknown }).expected === false) add(out, (h as { from?: unknown }).from);
  for (const a of list(d.unexpectedAgents)) add(out, a);
  for (const key of CALL_LISTS)
    for (const c of list(d[key])) add(out, (c as { agent?: unknown }).agent);
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
