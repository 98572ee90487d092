import type { ScoreResult } from './score-result.js';

/**
 * Agents a result blames at most (as many as a result's lists carry: `RESULT_BOUNDS.maxListItems`).
 * A hostile trace can blame any number (a failed call by each of 100,000 agents); past these the
 * rest are only counted, in {@link FailingAgentsRest}.
 */
export const MAX_FAILING_AGENTS = 256;

/**
 * Below this many agents kept, a name is looked for among them one by one; from there on in a
 * set (made once a result that reaches it), so each name costs at most this many comparisons.
 */
const SCAN = 8;

/** Where {@link failingAgents} says how many agents it left out (reused by a caller: no object a call). */
export interface FailingAgentsRest {
  /** Distinct agents blamed past {@link MAX_FAILING_AGENTS}, left out. */
  more: number;
}

/**
 * The agents a failing result blames, from the details the agent-aware scorers write: the agent
 * that made a call another agent should have made (`tool_trajectory`'s `wrongAgent`), the agent
 * that made a forbidden call, the source of a handoff that went the wrong way and an agent that
 * should not have taken control (`agent_routing`), the agent whose call failed or was refused, had
 * invalid arguments, named a tool never offered or repeated itself (`tool_errors`, `tool_arguments`,
 * `tool_loops`). Empty for a result that did not fail, or whose
 * failure names no agent. Deduped, in the order found: the first {@link MAX_FAILING_AGENTS}, the
 * number of others set on `rest` (0 when none). Linear in the details' entries: each is compared
 * with at most 8 names kept, then looked up in a set of the names seen (held during the call only:
 * no more than the details hold already).
 */
export function failingAgents(result: ScoreResult, rest?: FailingAgentsRest): string[] {
  if (rest) rest.more = 0;
  if (result.status !== 'scored' || result.label !== 'fail') return [];
  const d = result.details;
  const out: string[] = [];
  seen = undefined;
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
  // (`add` sets it: a cast, as the compiler reads it as still undefined here)
  const all = seen as Set<string> | undefined;
  if (rest && all) rest.more = all.size - out.length;
  // Not to keep the names blamed alive until the next call.
  seen = undefined;
  return out;
}

/**
 * Every name the result being read blames, once {@link SCAN} are kept (one result at a time:
 * `failingAgents` is synchronous); else undefined.
 */
let seen: Set<string> | undefined;

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
  if (typeof agent !== 'string' || agent === '') return;
  if (seen) {
    if (seen.has(agent)) return;
    seen.add(agent);
    if (out.length < MAX_FAILING_AGENTS) out.push(agent);
    return;
  }
  if (out.includes(agent)) return;
  out.push(agent);
  if (out.length === SCAN) seen = new Set(out);
}

const NONE: readonly unknown[] = [];

function list(value: unknown): readonly unknown[] {
  return Array.isArray(value) ? (value as unknown[]) : NONE;
}
