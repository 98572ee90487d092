import { z } from 'zod';
import type { ToolCall } from '../../normalize/tool-call.js';
import type { NormalizedTrace } from '../../normalize/normalize-trace.js';
import { callsOfTurn } from '../../normalize/session-trace.js';
import type { Scorer } from '../scorer.js';
import { baseOptionsSchema, parseScorerOptions } from '../scorer-options.js';
import { round2, scored, skipped, type ScoreResult } from '../score-result.js';
import type { ExpectedCall } from '../test-case.js';
import { nameKey, type NameKey } from '../name-key.js';
import { checkBefore } from './check-before.js';
import { AGENT_SPANS_HINT, explainTrajectory } from './explain-trajectory.js';
import { alignAnyOrder, alignInOrder, type Pair } from './align-calls.js';
import { compareArguments, type ArgumentMode } from './compare-arguments.js';

const argumentMode = z.enum(['ignore', 'exact', 'subset', 'partial', 'fuzzy']);
const expectedCallSchema = z.union([
  z
    .string()
    .min(1)
    .transform(name => ({ name })),
  z.object({
    name: z.string().min(1),
    args: z.unknown().optional(),
    optional: z.boolean().optional(),
    forbidden: z.boolean().optional(),
    agent: z.string().min(1).optional(),
  }),
]);

const optionsSchema = baseOptionsSchema.extend({
  /**
   * How the call sequence must relate to `expectedCalls`:
   * `exact` same calls, same order, nothing else; `in_order` expected calls in order, extras
   * allowed; `any_order` same calls as a multiset, any order, nothing else; `superset` every
   * expected call present, any order, extras allowed (ADK's ANY_ORDER); `subset` every call made
   * was expected, some may be missing.
   */
  match: z.enum(['exact', 'in_order', 'any_order', 'subset', 'superset']).default('in_order'),
  /** Argument comparison for every tool; see `compareArguments`. */
  args: argumentMode.default('subset'),
  /** Per-tool argument mode or `{ mode, ignoreKeys }`, keyed by tool name. */
  argsOverrides: z
    .record(
      z.string(),
      z.union([
        argumentMode,
        z.object({ mode: argumentMode.optional(), ignoreKeys: z.array(z.string()).optional() }),
      ]),
    )
    .default({}),
  /** Argument keys never compared: `request_id` at any depth, or a dotted path from the top. */
  ignoreKeys: z.array(z.string()).default([]),
  /** `binary`: 1 or 0. `partial`: credit per matched call (its argument score), see `metric`. */
  scoring: z.enum(['binary', 'partial']).default('binary'),
  /** With partial scoring, which figure is the score. Default: by `match` (see docs/suites-and-scorers.md). */
  metric: z.enum(['f1', 'precision', 'recall']).optional(),
  /** Minimum argument score for a call to match. Default 1 for binary scoring, any for partial. */
  argsThreshold: z.number().min(0).max(1).optional(),
  /** Tools that must never be called; any call scores 0. */
  forbiddenTools: z.array(z.string().min(1)).default([]),
  /** More calls than this scores 0. */
  maxCalls: z.number().int().min(0).optional(),
  expectedCalls: z.array(expectedCallSchema).optional(),
});

/** Options of {@link toolTrajectory}. */
export type ToolTrajectoryOptions = z.infer<typeof optionsSchema>;

const DEFAULT_METRIC = {
  exact: 'f1',
  any_order: 'f1',
  in_order: 'recall',
  superset: 'recall',
  subset: 'precision',
} as const;

/**
 * Compares the whole tool-call trajectory with `expectedCalls`: names, order and arguments, with
 * optional and forbidden calls and a call budget. Matching is optimal and one-to-one (an
 * order-preserving alignment for `exact`/`in_order`, a maximum-weight assignment otherwise), so
 * repeated calls and retries are neither double-counted nor order-dependent.
 *
 * Binary scoring passes when the `match` rule holds; partial scoring gives precision, recall and
 * F1 over the matched calls' argument scores. A forbidden call or exceeding `maxCalls` scores 0
 * either way. Skipped when there are no `expectedCalls`, `forbiddenTools` or `maxCalls`.
 */
export const toolTrajectory: Scorer<ToolTrajectoryOptions> = {
  name: 'tool_trajectory',
  kind: 'deterministic',
  description: 'Does the tool-call trajectory match the expected calls (order, arguments, budget)?',
  parseOptions: options => parseScorerOptions(optionsSchema, options),
  score({ trace, testCase, options, aliases }) {
    const expectedAll: ExpectedCall[] = [
      ...(testCase?.expectedCalls ?? options.expectedCalls ?? []),
      ...forbiddenCalls(testCase?.forbidden),
    ];
    const hasExpectation =
      testCase?.expectedCalls !== undefined || options.expectedCalls !== undefined;
    const turns = testCase?.turns;
    const before = testCase?.before ?? [];
    const hasRules =
      options.forbiddenTools.length > 0 ||
      options.maxCalls !== undefined ||
      (testCase?.forbidden?.length ?? 0) > 0;
    if (!hasExpectation && !hasRules && !turns && before.length === 0) {
      return skipped('no expectedCalls, forbiddenTools or maxCalls for this test case');
    }
    const key = nameKey(options.normalize, aliases);
    const whole = (): ScoreResult =>
      compareTrajectory(trace.toolSequence, expectedAll, hasExpectation, trace, options, key);
    if (!turns && before.length === 0) return whole();
    // A session's turns, its session-wide expectations and ordering rules: each a part, the
    // score the lowest part's, the reason each failing part's (naming its turn).
    const parts: Array<{ label: string | undefined; result: ScoreResult }> = [];
    if (hasExpectation || hasRules)
      parts.push({ label: trace.session ? 'session' : undefined, result: whole() });
    const sessionTurns = trace.session?.turns.length ?? 1;
    (turns ?? []).forEach((turn, i) => {
      const label = `turn ${i + 1}`;
      if (i >= sessionTurns) {
        parts.push({
          label,
          result: scored(
            0,
            options.threshold ?? 1,
            `no such turn: the session has ${sessionTurns}`,
            {},
          ),
        });
        return;
      }
      const calls = trace.session ? callsOfTurn(trace, i) : trace.toolSequence;
      const named: ExpectedCall[] =
        turn.expectedCalls ?? (turn.expectedTools ?? []).map(name => ({ name }));
      const expected = [
        ...named.map(e => (turn.agent && e.agent === undefined ? { ...e, agent: turn.agent } : e)),
        ...forbiddenCalls(turn.forbidden),
      ];
      const result = compareTrajectory(
        calls,
        expected,
        turn.expectedCalls !== undefined || turn.expectedTools !== undefined,
        trace,
        { ...options, forbiddenTools: [], maxCalls: undefined },
        key,
        trace.session ? trace.toolSequence.filter(c => c.turn !== i) : [],
      );
      parts.push({ label, result: withAgent(result, turn.agent, calls, trace, options) });
    });
    if (before.length > 0)
      parts.push({
        label: undefined,
        result: checkBefore(trace, before, key, {
          normalize: options.normalize,
          threshold: options.threshold,
        }),
      });
    return combineParts(parts, options, trace.session?.turns.length);
  },
};

/**
 * The trajectory of `actual` against `expectedAll` (forbidden entries included); `elsewhere`: the
 * calls of a session's other turns, for a reason that says where a missing call was made.
 */
function compareTrajectory(
  actual: readonly ToolCall[],
  expectedAll: readonly ExpectedCall[],
  hasExpectation: boolean,
  trace: NormalizedTrace,
  options: ToolTrajectoryOptions,
  key: NameKey,
  elsewhere: readonly ToolCall[] = [],
): ScoreResult {
  const threshold = options.threshold ?? 1;
  const shown = (c: ToolCall): string => (options.normalize ? c.name : c.rawName);
  // The agent of a call: its own, else the trace's (a single-agent trace's calls).
  const agentOf = (c: ToolCall): string | undefined => c.agent ?? trace.agentName;
  const forbidden = new Map<string, Array<string | undefined>>();
  const forbid = (name: string, agent: string | undefined): void => {
    const k = key.expected(name);
    forbidden.set(k, [...(forbidden.get(k) ?? []), agent]);
  };
  for (const name of options.forbiddenTools) forbid(name, undefined);
  for (const e of expectedAll) if (e.forbidden) forbid(e.name, e.agent);
  const isForbidden = (c: ToolCall): boolean =>
    forbidden.get(key.call(c))?.some(a => a === undefined || a === agentOf(c)) ?? false;
  const expected = expectedAll.filter(e => !e.forbidden);
  const overrides = new Map(
    Object.entries(options.argsOverrides).map(([k, v]) => [
      key.expected(k),
      typeof v === 'string' ? { mode: v } : v,
    ]),
  );

  const forbiddenCalls = actual.filter(isForbidden);
  const forbiddenCalled = forbiddenCalls.map(c =>
    expectedAll.some(e => e.forbidden && e.agent)
      ? `${shown(c)} by ${agentOf(c) ?? 'no agent'}`
      : shown(c),
  );
  const budgetExceeded = options.maxCalls !== undefined && actual.length > options.maxCalls;

  const argsThreshold = options.argsThreshold ?? (options.scoring === 'binary' ? 1 : 0);
  const weight = expected.map(e => {
    const ek = key.expected(e.name);
    const o = overrides.get(ek);
    const mode: ArgumentMode = o?.mode ?? options.args;
    const ignore = [...options.ignoreKeys, ...(o?.ignoreKeys ?? [])];
    return actual.map(c => {
      if (key.call(c) !== ek) return 0;
      // A right tool called by the wrong agent is a miss.
      if (e.agent !== undefined && agentOf(c) !== e.agent) return 0;
      const s = e.args === undefined ? 1 : compareArguments(e.args, c.arguments, mode, ignore);
      // A tiny bonus keeps a name match with argument score 0 matchable in partial scoring.
      return s >= argsThreshold ? s + 1e-9 : 0;
    });
  });
  const ordered = options.match === 'exact' || options.match === 'in_order';
  const pairs: Pair[] = ordered
    ? alignInOrder(weight, actual.length)
    : alignAnyOrder(weight, actual.length);

  const matchedExpected = new Set(pairs.map(p => p[0]));
  const matchedActual = new Set(pairs.map(p => p[1]));
  const missing = expected.filter((e, i) => !e.optional && !matchedExpected.has(i));
  const extra = actual.filter((_, j) => !matchedActual.has(j));
  const credit = pairs.reduce((sum, [i, j]) => sum + Math.min(1, weight[i]![j]!), 0);
  const required = expected.filter(e => !e.optional).length;
  const matchedOptional = pairs.filter(([i]) => expected[i]!.optional).length;
  const recallBase = required + matchedOptional;
  const precision = actual.length ? credit / actual.length : recallBase === 0 ? 1 : 0;
  const recall = recallBase ? credit / recallBase : 1;
  const f1 = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);

  const allowsExtra = options.match === 'in_order' || options.match === 'superset';
  const allowsMissing = options.match === 'subset';
  const structureOk =
    (allowsMissing || missing.length === 0) && (allowsExtra || extra.length === 0);

  const details: Record<string, unknown> = {
    match: options.match,
    args: options.args,
    scoring: options.scoring,
    precision: round2(precision),
    recall: round2(recall),
    f1: round2(f1),
    matched: pairs.map(([i, j]) => ({
      expected: expected[i]!.name,
      actualIndex: j,
      argScore: round2(Math.min(1, weight[i]![j]!)),
    })),
    missingTools: missing.map(e => e.name),
    unexpectedTools: extra.map(shown),
    forbiddenCalled,
    ...(forbiddenCalls.length && {
      forbiddenAgents: [...new Set(forbiddenCalls.map(agentOf).filter(a => a !== undefined))],
    }),
    callCount: actual.length,
    maxCalls: options.maxCalls,
  };
  if (forbiddenCalled.length) {
    return scored(
      0,
      threshold,
      `forbidden tool called: ${[...new Set(forbiddenCalled)].join(', ')}`,
      details,
    );
  }
  if (budgetExceeded) {
    return scored(
      0,
      threshold,
      `${actual.length} calls exceed maxCalls ${options.maxCalls}`,
      details,
    );
  }
  if (!hasExpectation) {
    // Only rules (forbidden tools, a budget) and none broken: there is no trajectory to compare.
    details.unexpectedTools = [];
    const budget =
      options.maxCalls === undefined
        ? ''
        : `; ${actual.length} of at most ${options.maxCalls} calls`;
    return scored(1, threshold, `no forbidden tool called${budget}`, details);
  }
  let score: number;
  if (options.scoring === 'binary') score = structureOk ? 1 : 0;
  else {
    const metric = options.metric ?? DEFAULT_METRIC[options.match];
    score = round2(metric === 'f1' ? f1 : metric === 'precision' ? precision : recall);
    details.metric = metric;
  }
  const explained = explainTrajectory({
    match: options.match,
    ok: structureOk,
    allowsExtra,
    expected,
    actual,
    missing: expected.flatMap((e, i) => (!e.optional && !matchedExpected.has(i) ? [i] : [])),
    extra: actual.flatMap((_, j) => (matchedActual.has(j) ? [] : [j])),
    weight,
    key,
    shown,
    agentOf,
    noAgents:
      expected.some(e => e.agent !== undefined) &&
      trace.agents.length === 0 &&
      actual.every(c => agentOf(c) === undefined)
        ? noAgentsClause(trace)
        : undefined,
    elsewhere,
  });
  if (expected.some(e => e.agent)) {
    details.wrongAgent = explained.wrongAgent;
    if (explained.agentsNotRecorded.length) details.agentsNotRecorded = explained.agentsNotRecorded;
  }
  if (explained.misordered.length) details.misordered = explained.misordered;
  if (explained.argumentsDiffer.length) details.argumentsDiffer = explained.argumentsDiffer;
  return scored(score, threshold, explained.reason, details);
}

/** What a reason says of a trace (or a session's traces) that records no agent. */
function noAgentsClause(trace: NormalizedTrace): string {
  return trace.session ? "the session's traces record no agents" : 'the trace records no agents';
}

/** `forbidden: [a, b]` as forbidden expected calls. */
function forbiddenCalls(names: readonly string[] | undefined): ExpectedCall[] {
  return (names ?? []).map(name => ({ name, forbidden: true }));
}

/**
 * A turn that names its `agent` fails when it made calls and none of them by that agent (its
 * expected calls already ask for the agent; this catches a turn that expects none), the reason
 * leading with the agent: who handled it, or that no agent is recorded and how one gets recorded.
 */
function withAgent(
  result: ScoreResult,
  agent: string | undefined,
  calls: readonly ToolCall[],
  trace: NormalizedTrace,
  options: ToolTrajectoryOptions,
): ScoreResult {
  if (agent === undefined || calls.length === 0 || result.status !== 'scored') return result;
  const agentOf = (c: ToolCall): string | undefined => c.agent ?? trace.agentName;
  const by = [...new Set(calls.map(agentOf))];
  if (by.includes(agent) || result.label === 'fail') return result;
  const recorded = by.filter(a => a !== undefined);
  if (recorded.length === 0 && trace.agents.length === 0)
    return scored(
      0,
      options.threshold ?? 1,
      `${noAgentsClause(trace)}, so the agent expected (${agent}) cannot be checked; ${AGENT_SPANS_HINT}`,
      { ...result.details, agentsNotRecorded: calls.map(c => c.name) },
    );
  return scored(
    0,
    options.threshold ?? 1,
    `handled by ${by.map(a => a ?? 'no agent').join(', ')}, expected ${agent}`,
    {
      ...result.details,
      wrongAgent: calls.map(c => ({ tool: c.name, expected: agent, calledBy: agentOf(c) })),
    },
  );
}

/**
 * A result from parts (the session-wide trajectory, each turn, the ordering rules): the lowest
 * part's score; the reason of every failing part, named (`turn 2: …`); the tool diffs and agents
 * of all parts joined, and each part's own result under `parts`.
 */
function combineParts(
  parts: ReadonlyArray<{ label: string | undefined; result: ScoreResult }>,
  options: ToolTrajectoryOptions,
  turnCount: number | undefined,
): ScoreResult {
  const scoredParts = parts.flatMap(p =>
    p.result.status === 'scored' ? [{ label: p.label, result: p.result }] : [],
  );
  const failing = scoredParts.filter(p => p.result.label === 'fail');
  const score = Math.min(1, ...scoredParts.map(p => p.result.score));
  const strings = (field: string): string[] => [
    ...new Set(scoredParts.flatMap(p => (p.result.details[field] as string[] | undefined) ?? [])),
  ];
  const list = (field: string): unknown[] =>
    scoredParts.flatMap(p => (p.result.details[field] as unknown[] | undefined) ?? []);
  const firstTurn = failing.find(p => p.label?.startsWith('turn '))?.label;
  const turns = turnCount === undefined ? '' : ` across ${turnCount} turn(s)`;
  const reason = failing.length
    ? failing.map(p => (p.label ? `${p.label}: ${p.result.reason}` : p.result.reason)).join('; ')
    : `trajectory matches${turns}; ${scoredParts.map(p => (p.label ? `${p.label}: ${p.result.reason}` : p.result.reason)).join('; ')}`;
  return scored(score, options.threshold ?? 1, reason, {
    match: options.match,
    missingTools: strings('missingTools'),
    unexpectedTools: strings('unexpectedTools'),
    forbiddenCalled: strings('forbiddenCalled'),
    wrongAgent: list('wrongAgent'),
    agentsNotRecorded: strings('agentsNotRecorded'),
    misordered: strings('misordered'),
    argumentsDiffer: strings('argumentsDiffer'),
    forbiddenAgents: strings('forbiddenAgents'),
    outOfOrder: strings('outOfOrder'),
    ...(firstTurn && { failingTurn: Number(firstTurn.slice('turn '.length)) }),
    parts: parts.map(p => ({
      part: p.label ?? 'order',
      ...(p.result.status === 'scored'
        ? { score: p.result.score, label: p.result.label, reason: p.result.reason }
        : { status: p.result.status }),
      details: p.result.status === 'scored' ? p.result.details : {},
    })),
  });
}
