import { describe, expect, it } from 'vitest';
import { agentTrace, teamTrace, type TeamTurn } from '../../../test/helpers/trace-builder.js';
import type { ScoreResult } from '../score-result.js';
import { agentRouting } from './agent-routing.js';

function score(
  turns: TeamTurn[],
  expectedAgents: string[] | undefined,
  options: Record<string, unknown> = {},
): ScoreResult {
  return agentRouting.score({
    trace: teamTrace(turns),
    testCase: { id: 't', scorers: [], ...(expectedAgents && { expectedAgents }) },
    options: agentRouting.parseOptions(options),
    aliases: new Map(),
  }) as ScoreResult;
}
const value = (r: ScoreResult): number | string => (r.status === 'scored' ? r.score : r.status);

const TRIAGE_TO_BILLING: TeamTurn[] = [
  { agent: 'triage', handoffTo: 'billing' },
  { agent: 'billing', calls: ['issue_refund'] },
];
// A supervisor that takes control back after its worker.
const AND_BACK: TeamTurn[] = [
  { agent: 'triage', handoffTo: 'billing' },
  { agent: 'billing', calls: ['issue_refund'], handoffTo: 'triage' },
  { agent: 'triage' },
];

describe('agent_routing', () => {
  it.each<[string, TeamTurn[], string[], [number, number, number]]>([
    ['the expected route', TRIAGE_TO_BILLING, ['triage', 'billing'], [1, 1, 1]],
    ['a return to the supervisor, not listed', AND_BACK, ['triage', 'billing'], [1, 1, 1]],
    ['the route reversed', TRIAGE_TO_BILLING, ['billing', 'triage'], [0, 0, 1]],
    ['an agent missing', [{ agent: 'triage' }], ['triage', 'billing'], [0, 0, 0]],
    [
      'an unexpected agent between',
      [
        { agent: 'triage', handoffTo: 'sales' },
        { agent: 'sales', handoffTo: 'billing' },
        { agent: 'billing' },
      ],
      ['triage', 'billing'],
      [0, 0, 0],
    ],
  ])('%s: exact, in_order, any_order', (_what, turns, expected, scores) => {
    expect(
      ['exact', 'in_order', 'any_order'].map(match => value(score(turns, expected, { match }))),
    ).toEqual(scores);
  });

  it('counts returns as steps with returns: count', () => {
    expect(value(score(AND_BACK, ['triage', 'billing'], { returns: 'count' }))).toBe(0);
    expect(value(score(AND_BACK, ['triage', 'billing', 'triage'], { returns: 'count' }))).toBe(1);
  });

  it('gives partial credit with precision, recall and F1 of the matched agents', () => {
    const turns: TeamTurn[] = [
      { agent: 'triage', handoffTo: 'sales' },
      { agent: 'sales', handoffTo: 'billing' },
      { agent: 'billing' },
    ];
    // Route triage, sales, billing against triage, billing: 2 of 3 right, 2 of 2 found.
    expect(value(score(turns, ['triage', 'billing'], { scoring: 'partial' }))).toBe(0.8);
    expect(
      value(score(turns, ['triage', 'billing'], { scoring: 'partial', metric: 'precision' })),
    ).toBe(0.67);
    expect(
      value(score(turns, ['triage', 'billing'], { scoring: 'partial', metric: 'recall' })),
    ).toBe(1);
  });

  it('names a handoff that went somewhere the route does not go', () => {
    const r = score(
      [
        { agent: 'triage', handoffTo: 'sales' },
        { agent: 'sales', handoffTo: 'billing' },
        { agent: 'billing' },
      ],
      ['triage', 'billing'],
      { match: 'in_order' },
    );
    expect(r.status === 'scored' && [r.label, r.reason]).toEqual([
      'fail',
      'routed triage → sales → billing, expected triage → billing (in_order); triage handed off to sales (transfer_to_sales); sales handed off to billing (transfer_to_billing)',
    ]);
    expect(r.status === 'scored' && r.details.handoffs).toEqual([
      { from: 'triage', to: 'sales', tool: 'transfer_to_sales', expected: false },
      { from: 'sales', to: 'billing', tool: 'transfer_to_billing', expected: false },
    ]);
  });

  it('is skipped without expectedAgents, and scores 0 on a trace that records no agents', () => {
    expect(value(score(TRIAGE_TO_BILLING, undefined))).toBe('skipped');
    const r = agentRouting.score({
      trace: agentTrace(['lookup']),
      testCase: { id: 't', scorers: [], expectedAgents: ['triage'] },
      options: agentRouting.parseOptions({}),
      aliases: new Map(),
    }) as ScoreResult;
    expect(r.status === 'scored' && [r.score, r.reason]).toEqual([
      0,
      'the trace records no agents (no agent spans): the route cannot be read (see docs/frameworks.md)',
    ]);
  });
});
