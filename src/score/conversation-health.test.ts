import { describe, expect, it } from 'vitest';
import { sessionTurnOf } from '../queue/session-policy.js';
import { parseSuite } from '../suite/load-suite.js';
import { isSessionSampled, resolveToolHealth } from '../suite/tool-health-rule.js';
import { CONFIG_DEFAULTS } from '../../test/helpers/config-defaults.js';
import { agentTrace, type CallInput } from '../../test/helpers/trace-builder.js';
import { scoreSession } from './score-session.js';
import { scoreTrace } from './score-trace.js';
import type { ScoringPlan } from './scoring-plan.js';
import type { TraceRun } from './trace-run.js';

/**
 * Tool health across production conversations (`toolHealth.sessions`): a session's pass runs
 * `tool_loops` and `tool_errors` on the whole conversation, as `rule:tool-health`, beside any
 * session test case's results; turns of session test cases get tool health on their own calls.
 */

const SUITE = `
name: support
scorers: [tool_trajectory, tool_loops]
testCases:
  - id: refund
    session: true
    turns:
      - expectedCalls: [lookup_order]
      - expectedCalls: [verify_identity, issue_refund]
`;

const health = (more: { sessions?: boolean; sessionSampleRate?: number } = {}) =>
  resolveToolHealth({
    results: CONFIG_DEFAULTS.results,
    toolHealth: { ...CONFIG_DEFAULTS.toolHealth, ...more },
  });

const plan = async (
  more: { sessions?: boolean; sessionSampleRate?: number },
  suite = false,
): Promise<ScoringPlan> => ({
  suites: suite ? [await parseSuite(SUITE, 'support.yaml', process.cwd())] : [],
  rules: [],
  toolHealth: health(more),
});

const lookup = { name: 'lookup_order', args: { order: 'A1' }, result: { status: 'delivered' } };

/** A conversation's turns: traces a minute apart, `session.id` on each root. */
function conversation(sessionId: string, turns: CallInput[][], testCaseId?: string) {
  return turns.map((calls, i) =>
    agentTrace(calls, {
      atMs: i * 60_000,
      rootAttributes: { 'session.id': sessionId },
      ...(testCaseId && { testCaseId }),
    }),
  );
}

/** `[suite, scorer, label, reason]` of every outcome of a run. */
const verdicts = (run: TraceRun) =>
  run.results.flatMap(r =>
    r.outcomes.map(o => [
      r.suite,
      o.scorer,
      o.result.status === 'scored' ? o.result.label : o.result.status,
      o.result.status === 'scored' ? o.result.reason : '',
    ]),
  );

describe('tool health across a production conversation', () => {
  it('finds a lookup repeated over three turns of a conversation no test case names', async () => {
    const turns = conversation('conv-1', [[lookup], [lookup], [lookup]]);
    const run = await scoreSession('conv-1', turns, await plan({ sessions: true }));
    expect(run).toMatchObject({
      state: 'scored',
      sessionId: 'conv-1',
      testCaseId: undefined,
      session: { id: 'conv-1', traceIds: turns.map(t => t.traceId) },
    });
    expect(run.results.map(r => [r.kind, r.suite, r.testCaseId])).toEqual([
      ['rule', 'rule:tool-health', 'rule:tool-health'],
    ]);
    expect(verdicts(run)).toEqual([
      ['rule:tool-health', 'tool_errors', 'pass', expect.any(String)],
      [
        'rule:tool-health',
        'tool_loops',
        'fail',
        'lookup_order was called 3 times with the same arguments ({"order":"A1"})',
      ],
    ]);
    // Each turn alone is healthy: one lookup each.
    const alone = await scoreTrace(turns[0]!.traceId, turns[0]!.spans, await plan({}));
    expect(verdicts(alone).find(v => v[1] === 'tool_loops')?.[2]).toBe('pass');
  });

  it('reports a failed call in any turn with tool_errors', async () => {
    const turns = conversation('conv-2', [
      [lookup],
      [{ name: 'issue_refund', args: { order: 'A1' }, error: 'payment gateway timeout' }],
    ]);
    const run = await scoreSession('conv-2', turns, await plan({ sessions: true }));
    const errors = run.results[0]!.outcomes.find(o => o.scorer === 'tool_errors')!.result;
    expect(errors).toMatchObject({
      label: 'fail',
      score: 0.5,
      details: { failedCalls: [{ name: 'issue_refund', error: 'payment gateway timeout' }] },
    });
  });

  it('scores a session that is both a session test case and a production conversation once, with both', async () => {
    const turns = conversation(
      'conv-3',
      [[lookup], [{ name: 'verify_identity', error: 'identity service down' }, 'issue_refund']],
      'refund',
    );
    const run = await scoreSession('conv-3', turns, await plan({ sessions: true }, true));
    expect(run.testCaseId).toBe('refund');
    // tool_loops ran for the test case: tool health across the conversation does not repeat it.
    expect(verdicts(run).map(v => v.slice(0, 3))).toEqual([
      ['support', 'tool_trajectory', 'pass'],
      ['support', 'tool_loops', 'pass'],
      ['rule:tool-health', 'tool_errors', 'fail'],
    ]);
  });

  it('leaves conversations alone with toolHealth.sessions off: no result, and no trace opens a session', async () => {
    const turns = conversation('conv-4', [[lookup], [lookup], [lookup]]);
    const off = await plan({});
    const run = await scoreSession('conv-4', turns, off);
    expect([run.state, run.reasonCode, run.results]).toEqual([
      'not_scored',
      'unknown_test_case',
      [],
    ]);
    const trace = await scoreTrace(turns[0]!.traceId, turns[0]!.spans, off);
    expect(trace.conversationHealth).toBeUndefined();
    expect(sessionTurnOf(trace, trace.traceId)).toMatchObject({
      sessionId: 'conv-4',
      tagged: false,
    });
    const on = await scoreTrace(turns[0]!.traceId, turns[0]!.spans, await plan({ sessions: true }));
    expect(on.conversationHealth).toBe(true);
    expect(sessionTurnOf(on, on.traceId)).toMatchObject({ sessionId: 'conv-4', tagged: true });
  });

  it('says why a sampled conversation with no tool call is not scored', async () => {
    const turns = conversation('conv-5', [[], []]);
    const run = await scoreSession('conv-5', turns, await plan({ sessions: true }));
    expect([run.state, run.reasonCode, run.reason]).toEqual([
      'not_scored',
      'no_tool_calls',
      'no tool calls recorded in the session (2 trace(s)): tool health scores conversations that call tools',
    ]);
  });
});

describe('sampling conversations by session id', () => {
  const ids = Array.from({ length: 4000 }, (_, i) => `conversation-${i}`);

  it('decides every turn of a conversation alike, keeps about the rate, and a superset at a higher rate', () => {
    const at = (rate: number) => new Set(ids.filter(id => isSessionSampled(id, rate)));
    const third = at(0.3);
    const twoThirds = at(0.6);
    // 4,000 draws at p = 0.3: the standard deviation is 29; 5 of them either side.
    expect(third.size).toBeGreaterThan(1200 - 145);
    expect(third.size).toBeLessThan(1200 + 145);
    expect([...third].every(id => twoThirds.has(id))).toBe(true);
    expect(ids.filter(id => isSessionSampled(id, 0.3) !== third.has(id))).toEqual([]);
    expect([at(0).size, at(1).size]).toEqual([0, ids.length]);
  });

  it('gathers only the sampled conversations: the run of a trace of one sampled out cannot open its session', async () => {
    const out = ids.find(id => !isSessionSampled(id, 0.5))!;
    const kept = ids.find(id => isSessionSampled(id, 0.5))!;
    const half = await plan({ sessions: true, sessionSampleRate: 0.5 });
    const runOf = async (id: string) => {
      const [t] = conversation(id, [[lookup]]);
      return scoreTrace(t!.traceId, t!.spans, half);
    };
    expect(sessionTurnOf(await runOf(out), 'x')!.tagged).toBe(false);
    expect(sessionTurnOf(await runOf(kept), 'x')!.tagged).toBe(true);
    const [t] = conversation(out, [[lookup], [lookup], [lookup]]);
    expect((await scoreSession(out, [t!], half)).results).toEqual([]);
  });
});

describe('tool health on a turn of a session test case', () => {
  it('reports a failed call inside a tested turn, with the scorers the suite does not run on the session', async () => {
    const [turn] = conversation(
      'conv-6',
      [[{ name: 'lookup_order', args: { order: 'A1' }, error: 'orders database unavailable' }]],
      'refund',
    );
    const run = await scoreTrace(turn!.traceId, turn!.spans, await plan({}, true));
    expect(run).toMatchObject({
      state: 'scored',
      reasonCode: 'session_test_case',
      reason: 'a turn of session test case support / refund: scored with its session',
    });
    // tool_loops is the suite's, scored on the session; the turn gets the other two.
    expect(verdicts(run).map(v => v.slice(0, 3))).toEqual([
      ['rule:tool-health', 'tool_errors', 'fail'],
      ['rule:tool-health', 'tool_arguments', 'skipped'],
    ]);
    // Still a turn of its session test case: it opens its session.
    expect(sessionTurnOf(run, run.traceId)!.tagged).toBe(true);
  });

  it('keeps a turn with no tool call a turn of its session, not scored alone', async () => {
    const [turn] = conversation('conv-7', [[]], 'refund');
    const run = await scoreTrace(turn!.traceId, turn!.spans, await plan({}, true));
    expect([run.state, run.reasonCode, run.results]).toEqual([
      'not_scored',
      'session_test_case',
      [],
    ]);
    expect(sessionTurnOf(run, run.traceId)!.tagged).toBe(true);
  });
});
