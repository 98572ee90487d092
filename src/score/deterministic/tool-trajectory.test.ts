import { describe, expect, it } from 'vitest';
import { agentTrace, teamTrace, type CallInput } from '../../../test/helpers/trace-builder.js';
import type { ScoreResult } from '../score-result.js';
import type { ExpectedCall } from '../test-case.js';
import { toolTrajectory } from './tool-trajectory.js';
import { sessionTrace } from '../../normalize/session-trace.js';

function score(
  calls: CallInput[],
  expectedCalls: ExpectedCall[] | undefined,
  options: Record<string, unknown> = {},
): ScoreResult {
  return toolTrajectory.score({
    trace: agentTrace(calls),
    testCase: { id: 't', scorers: [], ...(expectedCalls && { expectedCalls }) },
    options: toolTrajectory.parseOptions(options),
    aliases: new Map(),
  }) as ScoreResult;
}
const names = (...n: string[]): ExpectedCall[] => n.map(name => ({ name }));
const value = (r: ScoreResult): number | string => (r.status === 'scored' ? r.score : r.status);

describe('tool_trajectory: match modes (binary)', () => {
  // calls, expected, and the score under exact / in_order / any_order / superset / subset
  it.each<[string[], string[], [number, number, number, number, number]]>([
    [
      ['a', 'b'],
      ['a', 'b'],
      [1, 1, 1, 1, 1],
    ],
    [
      ['a', 'x', 'b'],
      ['a', 'b'],
      [0, 1, 0, 1, 0],
    ],
    [
      ['b', 'a'],
      ['a', 'b'],
      [0, 0, 1, 1, 1],
    ],
    [['a'], ['a', 'b'], [0, 0, 0, 0, 1]],
    [['a', 'a'], ['a'], [0, 1, 0, 1, 0]],
    [[], [], [1, 1, 1, 1, 1]],
    [['a'], [], [0, 1, 0, 1, 0]],
    [
      ['b', 'a', 'b'],
      ['a', 'b'],
      [0, 1, 0, 1, 0],
    ],
  ])('%j vs %j', (calls, expected, scores) => {
    const modes = ['exact', 'in_order', 'any_order', 'superset', 'subset'];
    expect(modes.map(match => value(score(calls, names(...expected), { match })))).toEqual(scores);
  });
});

describe('tool_trajectory: arguments', () => {
  const calls: CallInput[] = [
    { name: 'search', args: { q: 'weather paris', limit: 5, request_id: 'r-1' } },
  ];
  it.each([
    ['exact', { q: 'weather paris', limit: 5, request_id: 'r-1' }, 1],
    ['exact', { q: 'weather paris' }, 0],
    ['subset', { q: 'weather paris' }, 1],
    ['subset', { q: 'weather rome' }, 0],
    ['ignore', { q: 'anything' }, 1],
  ])('args %s with %j → %i', (args, expectedArgs, expected) => {
    expect(value(score(calls, [{ name: 'search', args: expectedArgs }], { args }))).toBe(expected);
  });
  it('ignoreKeys and per-tool overrides', () => {
    expect(
      value(
        score(
          calls,
          [{ name: 'search', args: { q: 'weather paris', limit: 5, request_id: 'other' } }],
          { args: 'exact', ignoreKeys: ['request_id'] },
        ),
      ),
    ).toBe(1);
    expect(
      value(
        score(calls, [{ name: 'search', args: { q: 'nope' } }], {
          args: 'exact',
          argsOverrides: { Search: 'ignore' },
        }),
      ),
    ).toBe(1);
    expect(
      value(
        score(
          calls,
          [{ name: 'search', args: { q: 'weather paris', limit: 5, request_id: 'x' } }],
          { args: 'exact', argsOverrides: { search: { ignoreKeys: ['request_id'] } } },
        ),
      ),
    ).toBe(1);
  });
  it('a call with the right name but wrong arguments is missing and unexpected in binary scoring', () => {
    const r = score(calls, [{ name: 'search', args: { q: 'rome' } }], { match: 'exact' });
    expect(r).toMatchObject({
      score: 0,
      details: { missingTools: ['search'], unexpectedTools: ['search'] },
    });
  });
});

describe('tool_trajectory: partial credit', () => {
  it('F1 for any_order: 2 of 3 expected matched, 1 extra → P 2/3, R 2/3', () => {
    const r = score(['a', 'b', 'x'], names('a', 'b', 'c'), {
      match: 'any_order',
      scoring: 'partial',
    });
    expect(r).toMatchObject({
      score: 0.67,
      details: {
        precision: 0.67,
        recall: 0.67,
        metric: 'f1',
        missingTools: ['c'],
        unexpectedTools: ['x'],
      },
    });
  });
  it('recall for in_order: the out-of-order call earns nothing', () => {
    expect(
      value(
        score(['b', 'a', 'c'], names('a', 'b', 'c'), { match: 'in_order', scoring: 'partial' }),
      ),
    ).toBe(0.67);
  });
  it('argument similarity is the credit of a matched call', () => {
    const r = score(
      [{ name: 'search', args: { q: 'a', n: 1 } }],
      [{ name: 'search', args: { q: 'a', n: 2 } }],
      { match: 'exact', scoring: 'partial', args: 'partial' },
    );
    expect(r).toMatchObject({
      score: 0.5,
      details: { matched: [{ expected: 'search', actualIndex: 0, argScore: 0.5 }] },
    });
  });
  it('retries of one expected call are not double-counted', () => {
    expect(
      score(['search', 'search', 'search'], names('search'), {
        match: 'any_order',
        scoring: 'partial',
        metric: 'recall',
      }),
    ).toMatchObject({ score: 1 });
    expect(
      score(['search', 'search', 'search'], names('search'), {
        match: 'any_order',
        scoring: 'partial',
        metric: 'precision',
      }),
    ).toMatchObject({ score: 0.33 });
  });
});

describe('tool_trajectory: optional, forbidden, budget', () => {
  it('an optional call may be absent, and is not an extra when present', () => {
    const expected: ExpectedCall[] = [
      { name: 'auth' },
      { name: 'log', optional: true },
      { name: 'fetch' },
    ];
    expect(value(score(['auth', 'fetch'], expected, { match: 'exact' }))).toBe(1);
    expect(value(score(['auth', 'log', 'fetch'], expected, { match: 'exact' }))).toBe(1);
  });
  it('any forbidden call scores 0, from forbiddenTools or a forbidden expected entry', () => {
    expect(
      score(['search', 'delete_user'], names('search'), { forbiddenTools: ['deleteUser'] }),
    ).toMatchObject({ score: 0, reason: 'forbidden tool called: delete_user' });
    expect(
      value(score(['search', 'wipe'], [{ name: 'search' }, { name: 'wipe', forbidden: true }])),
    ).toBe(0);
  });
  it('more calls than maxCalls scores 0', () => {
    expect(score(['a', 'a', 'a'], names('a'), { maxCalls: 2 })).toMatchObject({
      score: 0,
      reason: '3 calls exceed maxCalls 2',
    });
  });
  it('a production rule with only forbiddenTools scores traces without expectations', () => {
    expect(
      score(['search'], undefined, { forbiddenTools: ['delete_user'], maxCalls: 3 }),
    ).toMatchObject({
      score: 1,
      reason: 'no forbidden tool called; 1 of at most 3 calls',
      details: { unexpectedTools: [] },
    });
  });
  it('is skipped with no expectedCalls, forbiddenTools or maxCalls', () => {
    expect(value(score(['a'], undefined))).toBe('skipped');
  });
});

describe('tool_trajectory: agents', () => {
  const team = teamTrace([
    { agent: 'triage', calls: ['lookup_faq'], handoffTo: 'billing' },
    { agent: 'billing', calls: ['lookup_order', 'issue_refund'] },
  ]);
  const run = (expectedCalls: ExpectedCall[], options: Record<string, unknown> = {}) =>
    toolTrajectory.score({
      trace: team,
      testCase: { id: 't', scorers: [], expectedCalls },
      options: toolTrajectory.parseOptions({ match: 'in_order', ...options }),
      aliases: new Map(),
    }) as ScoreResult;

  it('matches a call by the named agent, and misses the right tool by another agent', () => {
    expect(value(run([{ name: 'issue_refund', agent: 'billing' }]))).toBe(1);
    const r = run([{ name: 'lookup_faq', agent: 'billing' }]);
    expect(r.status === 'scored' && [r.score, r.reason]).toEqual([
      0,
      // The agent first; the calls the rule allows beyond the expected one last, as allowed.
      'lookup_faq was called by triage, expected by billing; trajectory does not match (in_order); also called: lookup_order, issue_refund',
    ]);
    expect(r.status === 'scored' && r.details.wrongAgent).toEqual([
      { tool: 'lookup_faq', expected: 'billing', calledBy: 'triage' },
    ]);
  });

  it('forbids a tool to one agent only', () => {
    expect(value(run([{ name: 'issue_refund', agent: 'triage', forbidden: true }]))).toBe(1);
    const r = run([{ name: 'issue_refund', agent: 'billing', forbidden: true }]);
    expect(r.status === 'scored' && [r.score, r.reason]).toEqual([
      0,
      'forbidden tool called: issue_refund by billing',
    ]);
  });

  it('leaves the handoff out of the trajectory: no unexpected transfer_to_billing', () => {
    const r = run([{ name: 'lookup_faq' }, { name: 'lookup_order' }, { name: 'issue_refund' }], {
      match: 'exact',
    });
    expect(r.status === 'scored' && [r.score, r.details.unexpectedTools]).toEqual([1, []]);
  });
});

describe('tool_trajectory: ordering rules and forbidden tools on one trace', () => {
  const withRules = (
    calls: CallInput[],
    more: { before?: Array<[string, string]>; forbidden?: string[] },
  ) =>
    toolTrajectory.score({
      trace: agentTrace(calls),
      testCase: { id: 't', scorers: [], ...more },
      options: toolTrajectory.parseOptions({}),
      aliases: new Map(),
    }) as ScoreResult;

  it('holds a rule when the first tool came before every call of the second', () => {
    const ok = withRules(['verify', 'refund', 'refund'], { before: [['verify', 'refund']] });
    expect([value(ok), ok.status === 'scored' && ok.reason]).toEqual([
      1,
      'trajectory matches; order kept (verify before refund)',
    ]);
    // A second tool never called breaks no rule.
    expect(value(withRules(['lookup'], { before: [['verify', 'refund']] }))).toBe(1);
  });

  it('breaks a rule when a call of the second came first, or with no call of the first at all', () => {
    const late = withRules(['refund', 'verify'], { before: [['verify', 'refund']] });
    expect(late).toMatchObject({
      score: 0,
      reason: 'out of order: refund at call 1 before any verify (first at call 2)',
      details: { outOfOrder: ['refund at call 1 before any verify (first at call 2)'] },
    });
    expect(withRules(['lookup', 'refund'], { before: [['verify', 'refund']] })).toMatchObject({
      score: 0,
      reason: 'out of order: refund at call 2 before any verify (never called)',
    });
  });

  it('scores 0 for a forbidden tool on the case, whatever else matches', () => {
    expect(
      withRules(['lookup', 'delete_account'], { forbidden: ['delete_account'] }),
    ).toMatchObject({
      score: 0,
      reason: 'forbidden tool called: delete_account',
    });
    expect(value(withRules(['lookup'], { forbidden: ['delete_account'] }))).toBe(1);
  });
});

describe('tool_trajectory: reasons lead with what is wrong, and never say it twice', () => {
  const trajectory = (
    trace: ReturnType<typeof agentTrace>,
    expectedCalls: ExpectedCall[],
    options: Record<string, unknown> = {},
  ) =>
    toolTrajectory.score({
      trace,
      testCase: { id: 't', scorers: [], expectedCalls },
      options: toolTrajectory.parseOptions(options),
      aliases: new Map(),
    }) as ScoreResult;
  const byBilling = (...n: string[]): ExpectedCall[] => n.map(name => ({ name, agent: 'billing' }));

  it('a call by the expected agent, out of order, is an order problem, not an agent one', () => {
    const trace = teamTrace([
      { agent: 'triage', calls: [], handoffTo: 'billing' },
      { agent: 'billing', calls: ['issue_refund', 'verify_identity'] },
    ]);
    const r = trajectory(trace, byBilling('verify_identity', 'issue_refund'));
    // verify_identity (the later call) matches in order; the refund before it is out of order.
    expect(r).toMatchObject({
      score: 0,
      reason: 'trajectory does not match (in_order); out of order: issue_refund',
      details: { wrongAgent: [], misordered: ['issue_refund'] },
    });
  });

  it('an agent-only problem opens with the agent, not with missing calls', () => {
    const trace = teamTrace([
      { agent: 'triage', calls: ['verify_identity', 'issue_refund'], handoffTo: 'billing' },
      { agent: 'billing', calls: [] },
    ]);
    const r = trajectory(trace, byBilling('verify_identity', 'issue_refund'));
    expect(r).toMatchObject({
      score: 0,
      reason:
        'verify_identity was called by triage, expected by billing; issue_refund was called by triage, expected by billing; trajectory does not match (in_order)',
      details: {
        wrongAgent: [
          { tool: 'verify_identity', expected: 'billing', calledBy: 'triage' },
          { tool: 'issue_refund', expected: 'billing', calledBy: 'triage' },
        ],
      },
    });
  });

  it('an agent expectation on a trace with no agent spans says the trace records none, and how agents get recorded', () => {
    const trace = agentTrace(['verify_identity', 'issue_refund']);
    expect([trace.agents, trace.agentName]).toEqual([[], undefined]);
    const r = trajectory(trace, byBilling('verify_identity', 'issue_refund'));
    expect(r.status === 'scored' && [r.score, r.reason]).toEqual([
      0,
      'the trace records no agents, so the agent expected (billing) cannot be checked: verify_identity, issue_refund were called with no agent span around them; agent spans are written by the OpenAI Agents SDK and LangGraph (through OpenInference), Mastra, VoltAgent, Google ADK, Strands and the Vercel AI SDK 7 (GenAI invoke_agent with gen_ai.agent.name), not by the Vercel AI SDK 6 (see docs/frameworks.md, "Multi-agent teams"); trajectory does not match (in_order)',
    ]);
    expect(r.status === 'scored' && r.details).toMatchObject({
      wrongAgent: [],
      agentsNotRecorded: ['verify_identity', 'issue_refund'],
    });
  });

  it('a turn naming its agent, in a session with no agent spans, says so too', () => {
    const turns = [agentTrace(['lookup_order'], { atMs: 0 })];
    const r = toolTrajectory.score({
      trace: sessionTrace('s', turns),
      testCase: { id: 't', scorers: [], session: true, turns: [{ agent: 'billing' }] },
      options: toolTrajectory.parseOptions({}),
      aliases: new Map(),
    }) as ScoreResult;
    expect(
      r.status === 'scored' && [r.score, r.reason.split('; agent spans are written')[0]],
    ).toEqual([
      0,
      "turn 1: the session's traces record no agents, so the agent expected (billing) cannot be checked",
    ]);
  });

  it('names a call made with other arguments, and one made in another turn, for what they are', () => {
    const args = trajectory(agentTrace([{ name: 'lookup_order', args: { order: 'B2' } }]), [
      { name: 'lookup_order', args: { order: 'A1' } },
    ]);
    expect(args).toMatchObject({
      score: 0,
      reason: 'trajectory does not match (in_order); arguments differ: lookup_order',
      details: { argumentsDiffer: ['lookup_order'] },
    });
    const exact = trajectory(agentTrace(['a', 'c']), names('a', 'b'), { match: 'exact' });
    expect(exact).toMatchObject({
      reason: 'trajectory does not match (exact); missing: b; unexpected: c',
    });
  });
});
