import { z } from 'zod';
import { agentsInOrder, type Handoff } from '../../normalize/attribute-agents.js';
import type { Scorer } from '../scorer.js';
import { baseOptionsSchema, parseScorerOptions } from '../scorer-options.js';
import { round2, scored, skipped } from '../score-result.js';
import { alignAnyOrder, alignInOrder, type Pair } from './align-calls.js';

const optionsSchema = baseOptionsSchema.extend({
  /**
   * How the route must relate to `expectedAgents`: `exact` the same agents take control in the
   * same order and no other; `in_order` the expected agents in that order, others allowed
   * between; `any_order` the same agents, in any order.
   */
  match: z.enum(['exact', 'in_order', 'any_order']).default('exact'),
  /**
   * `ignore` (the default): an agent the run returns to (a supervisor taking back control) is
   * not a new step, so the route is each agent at its first takeover. `count`: every takeover is
   * a step, and the expected list must list the returns too.
   */
  returns: z.enum(['ignore', 'count']).default('ignore'),
  /** `binary`: 1 or 0. `partial`: precision, recall or F1 over the matched agents (`metric`). */
  scoring: z.enum(['binary', 'partial']).default('binary'),
  metric: z.enum(['f1', 'precision', 'recall']).default('f1'),
  expectedAgents: z.array(z.string().min(1)).optional(),
});

/** Options of {@link agentRouting}. */
export type AgentRoutingOptions = z.infer<typeof optionsSchema>;

/**
 * Was the request routed to the right agents? Compares the trace's route (the agents in the
 * order they took control, see `NormalizedTrace.agents`) with `expectedAgents`, matched one to
 * one as trajectories are (an order-preserving alignment for `exact` and `in_order`, an optimal
 * assignment for `any_order`), with the same precision, recall and F1 for partial credit. Each
 * handoff is checked too: in order, it went where it should when its target follows its source
 * in the expected route (or is a return to an agent that already ran); in any order, when its
 * target is an expected agent. The others are listed in the details and the reason, and fail a
 * binary score. Agent names compare exactly.
 *
 * Skipped without `expectedAgents`; a trace that records no agents scores 0 and says so.
 */
export const agentRouting: Scorer<AgentRoutingOptions> = {
  name: 'agent_routing',
  kind: 'deterministic',
  description: 'Did the request reach the expected agents, in order, through the right handoffs?',
  parseOptions: options => parseScorerOptions(optionsSchema, options),
  score({ trace, testCase, options }) {
    const expected = testCase?.expectedAgents ?? options.expectedAgents;
    if (expected === undefined) return skipped('no expectedAgents for this test case');
    const threshold = options.threshold ?? 1;
    const turns = trace.agents.map(t => t.agent);
    const route = options.returns === 'count' ? turns : agentsInOrder(trace.agents);
    const details: Record<string, unknown> = {
      match: options.match,
      returns: options.returns,
      expectedAgents: expected,
      route: turns,
    };
    if (turns.length === 0)
      return scored(
        0,
        threshold,
        'the trace records no agents (no agent spans): the route cannot be read (see docs/frameworks.md)',
        details,
      );
    const weight = expected.map(e => route.map(a => (a === e ? 1 : 0)));
    const ordered = options.match !== 'any_order';
    const pairs: Pair[] = ordered
      ? alignInOrder(weight, route.length)
      : alignAnyOrder(weight, route.length);
    const matchedExpected = new Set(pairs.map(p => p[0]));
    const matchedRoute = new Set(pairs.map(p => p[1]));
    const missing = expected.filter((_, i) => !matchedExpected.has(i));
    const extra = route.filter((_, j) => !matchedRoute.has(j));
    const precision = route.length ? pairs.length / route.length : 0;
    const recall = expected.length ? pairs.length / expected.length : route.length ? 0 : 1;
    const f1 = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
    const wrongHandoffs = ordered
      ? misdirected(trace.handoffs, expected)
      : trace.handoffs.filter(h => !expected.includes(h.to));
    const structureOk =
      missing.length === 0 && (options.match === 'in_order' || extra.length === 0);
    // Asked once a handoff: a set, as a trace may hold thousands.
    const wrong = new Set(wrongHandoffs);
    Object.assign(details, {
      precision: round2(precision),
      recall: round2(recall),
      f1: round2(f1),
      missingAgents: missing,
      unexpectedAgents: extra,
      handoffs: trace.handoffs.map(h => ({
        from: h.from ?? null,
        to: h.to,
        tool: h.rawName,
        expected: !wrong.has(h),
      })),
    });
    const ok = structureOk && wrongHandoffs.length === 0;
    const score =
      options.scoring === 'binary'
        ? ok
          ? 1
          : 0
        : round2(
            options.metric === 'f1' ? f1 : options.metric === 'precision' ? precision : recall,
          );
    const parts: string[] = [];
    if (missing.length)
      parts.push(`${ordered ? 'missing or out of order' : 'missing'}: ${missing.join(', ')}`);
    if (extra.length && options.match !== 'in_order')
      parts.push(`${ordered ? 'unexpected or out of order' : 'unexpected'}: ${extra.join(', ')}`);
    for (const h of wrongHandoffs)
      parts.push(`${h.from ?? 'an unknown agent'} handed off to ${h.to} (${h.rawName})`);
    return scored(
      score,
      threshold,
      ok
        ? `routed as expected (${options.match}): ${turns.join(' → ')}`
        : `routed ${turns.join(' → ')}, expected ${expected.join(' → ')} (${options.match}); ${parts.join('; ')}`,
      details,
    );
  },
};

/**
 * Handoffs that went somewhere the expected route does not go from their source: the target is
 * neither the agent after the source in `expected` nor an agent that already ran (a return).
 */
function misdirected(handoffs: readonly Handoff[], expected: readonly string[]): Handoff[] {
  const ran = new Set<string>();
  const wrong: Handoff[] = [];
  for (const h of handoffs) {
    if (h.from !== undefined) ran.add(h.from);
    const i = h.from === undefined ? -1 : expected.indexOf(h.from);
    const next = i >= 0 ? expected[i + 1] : undefined;
    const returning = ran.has(h.to) && expected.includes(h.to);
    if (h.to !== next && !returning) wrong.push(h);
    ran.add(h.to);
  }
  return wrong;
}
