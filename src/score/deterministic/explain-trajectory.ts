import type { ToolCall } from '../../normalize/tool-call.js';
import type { NameKey } from '../name-key.js';
import type { ExpectedCall } from '../test-case.js';

/** An expected call made, but by another agent than the one the test case names. */
export interface WrongAgent {
  tool: string;
  expected: string;
  calledBy: string | undefined;
}

/** What {@link explainTrajectory} reads of one comparison of calls with expected calls. */
export interface TrajectoryFacts {
  /** The `match` rule, shown in the reason. */
  match: string;
  /** The rule holds (missing and extra calls as it allows). */
  ok: boolean;
  /** The rule allows calls beyond the expected ones (`in_order`, `superset`). */
  allowsExtra: boolean;
  /** The expected calls compared (forbidden ones left out). */
  expected: readonly ExpectedCall[];
  actual: readonly ToolCall[];
  /** Indices into `expected` of the required calls nothing matched. */
  missing: readonly number[];
  /** Indices into `actual` of the calls that matched nothing. */
  extra: readonly number[];
  /** `weight[i][j]`: how well call `j` matches expected call `i`; 0 when it cannot. */
  weight: ReadonlyArray<readonly number[]>;
  key: NameKey;
  shown: (call: ToolCall) => string;
  agentOf: (call: ToolCall) => string | undefined;
  /**
   * Set (to the clause saying so: "the trace records no agents") when neither the calls compared
   * nor the trace record any agent: an `agent` expectation cannot be checked.
   */
  noAgents: string | undefined;
  /** Calls outside the part compared (a session's other turns): where a missing call went. */
  elsewhere: readonly ToolCall[];
}

/** A comparison's reason, and the misses it sorted out (for `details`). */
export interface TrajectoryExplanation {
  reason: string;
  /** Expected calls made by another agent than the one named. */
  wrongAgent: WrongAgent[];
  /** Expected calls made by no agent, in a trace that records none (`noAgents`). */
  agentsNotRecorded: string[];
  /** Expected calls made, matching, but not in the order the rule asks. */
  misordered: string[];
  /** Expected calls of a tool that was called, but whose arguments did not match. */
  argumentsDiffer: string[];
}

/**
 * Where agents come from, for a reason that says a trace records none (see docs/frameworks.md,
 * "Multi-agent teams"; the Vercel AI SDK 6 writes no agent span).
 */
export const AGENT_SPANS_HINT =
  'agent spans are written by the OpenAI Agents SDK and LangGraph (through OpenInference), Mastra, VoltAgent, Google ADK, Strands and the Vercel AI SDK 7 (GenAI invoke_agent with gen_ai.agent.name), not by the Vercel AI SDK 6 (see docs/frameworks.md, "Multi-agent teams")';

/**
 * Says what is wrong with a trajectory, most telling first, and never two things of one call: each
 * required call nothing matched is put down once, as made by another agent
 * (`issue_refund was called by triage, expected by billing`; or, when no agent is recorded at
 * all, that the trace records none and how agents get recorded), else made but out of order, else
 * made with other arguments, else missing (with the turn it was made in instead, for a session's
 * turn); each unmatched call explains at most one of them. A call by the expected agent is never
 * an agent problem. The agent problems open the reason, then the verdict
 * (`trajectory does not match (in_order)`) and the rest; calls left over are `unexpected`, or
 * `also called` where the rule allows them. Pure.
 */
export function explainTrajectory(facts: TrajectoryFacts): TrajectoryExplanation {
  const { expected, actual, weight, key, agentOf } = facts;
  const unclaimed = [...facts.extra];
  const claim = (test: (j: number) => boolean): number | undefined => {
    const at = unclaimed.findIndex(test);
    return at < 0 ? undefined : unclaimed.splice(at, 1)[0];
  };
  const out: TrajectoryExplanation = {
    reason: '',
    wrongAgent: [],
    agentsNotRecorded: [],
    misordered: [],
    argumentsDiffer: [],
  };
  const absent: string[] = [];
  for (const i of facts.missing) {
    const e = expected[i]!;
    const k = key.expected(e.name);
    const sameTool = (j: number): boolean => key.call(actual[j]!) === k;
    const byAgent = (j: number): boolean =>
      e.agent === undefined || agentOf(actual[j]!) === e.agent;
    const other = e.agent === undefined ? undefined : claim(j => sameTool(j) && !byAgent(j));
    if (other !== undefined) {
      const calledBy = agentOf(actual[other]!);
      if (calledBy === undefined && facts.noAgents !== undefined)
        out.agentsNotRecorded.push(e.name);
      else out.wrongAgent.push({ tool: e.name, expected: e.agent!, calledBy });
    } else if (claim(j => sameTool(j) && weight[i]![j]! > 0) !== undefined)
      out.misordered.push(e.name);
    else if (claim(j => sameTool(j) && byAgent(j)) !== undefined) out.argumentsDiffer.push(e.name);
    else {
      const went = facts.elsewhere.find(c => key.call(c) === k && c.turn !== undefined);
      absent.push(went ? `${e.name} (called in turn ${went.turn! + 1})` : e.name);
    }
  }
  const lead: string[] = [];
  if (out.agentsNotRecorded.length) {
    const agents = [
      ...new Set(
        facts.missing.flatMap(i => {
          const e = expected[i]!;
          return out.agentsNotRecorded.includes(e.name) && e.agent ? [e.agent] : [];
        }),
      ),
    ];
    lead.push(
      `${facts.noAgents}, so the agent expected (${agents.join(', ')}) cannot be checked: ${out.agentsNotRecorded.join(', ')} ${out.agentsNotRecorded.length > 1 ? 'were' : 'was'} called with no agent span around ${out.agentsNotRecorded.length > 1 ? 'them' : 'it'}; ${AGENT_SPANS_HINT}`,
    );
  }
  for (const w of out.wrongAgent)
    lead.push(`${w.tool} was called by ${w.calledBy ?? 'no agent'}, expected by ${w.expected}`);
  const rest: string[] = [];
  if (out.misordered.length) rest.push(`out of order: ${out.misordered.join(', ')}`);
  if (out.argumentsDiffer.length) rest.push(`arguments differ: ${out.argumentsDiffer.join(', ')}`);
  if (absent.length) rest.push(`missing: ${absent.join(', ')}`);
  const left = unclaimed.map(j => facts.shown(actual[j]!));
  if (left.length)
    rest.push(`${facts.allowsExtra ? 'also called' : 'unexpected'}: ${left.join(', ')}`);
  const verdict = `trajectory ${facts.ok ? 'matches' : 'does not match'} (${facts.match})`;
  out.reason = [...lead, [verdict, ...rest].join('; ')].join('; ');
  return out;
}
