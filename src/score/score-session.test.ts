import { describe, expect, it } from 'vitest';
import type { SpanDigest } from '../ingest/span-digest.js';
import { parseSuite } from '../suite/load-suite.js';
import { agentTrace, type CallInput } from '../../test/helpers/trace-builder.js';
import { scoreSuite } from './score-suite.js';
import { scoreSession } from './score-session.js';

/**
 * Sessions scored as one, offline (`scoreSuite` groups traces by session id): a conversation
 * whose turns are traces, each with `session.id` (OpenInference's convention) on its root.
 */
const SUITE = `
name: support
scorers: [tool_trajectory, tool_loops]
testCases:
  - id: refund-conversation
    session: true
    turns:
      - expectedCalls: [{ name: lookup_order, args: { order: A1 } }]
      - expectedCalls: [verify_identity, issue_refund]
    before: [verify_identity, issue_refund]
  - id: refund-anywhere
    session: true
    expectedCalls: [verify_identity, issue_refund]
    forbidden: [delete_account]
    before: [[verify_identity, issue_refund]]
  - id: one-trace
    expectedCalls: [lookup_order]
`;

const lookup = { name: 'lookup_order', args: { order: 'A1' }, result: { status: 'delivered' } };

/** The spans of a session's turns: each a trace starting a minute after the one before. */
function session(id: string | undefined, testCaseId: string, turns: CallInput[][]): SpanDigest[] {
  return turns.flatMap(
    (calls, i) =>
      agentTrace(calls, {
        testCaseId,
        atMs: i * 60_000,
        rootAttributes: id === undefined ? {} : { 'session.id': id },
      }).spans,
  );
}

const suite = () => parseSuite(SUITE, 'support.yaml', process.cwd());

/** Each scored session's verdicts: `<scorer>` → label, and the reasons. */
async function scoreSessions(spans: SpanDigest[]) {
  const run = await scoreSuite(spans, await suite());
  return {
    run,
    sessions: run.scored
      .filter(s => s.trace.session)
      .map(s => ({
        id: s.trace.session!.id,
        testCaseId: s.testCaseId,
        turns: s.trace.session!.turns.map(t => t.traceId),
        traceId: s.trace.traceId,
        verdicts: Object.fromEntries(
          s.outcomes.map(o => [
            o.scorer,
            o.result.status === 'scored' ? o.result.label : o.result.status,
          ]),
        ),
        reasons: Object.fromEntries(
          s.outcomes.map(o => [
            o.scorer,
            o.result.status === 'failed' ? o.result.error : o.result.reason,
          ]),
        ),
        details: Object.fromEntries(
          s.outcomes.map(o => [o.scorer, o.result.status === 'scored' ? o.result.details : {}]),
        ),
      })),
  };
}

describe('a session test case, scored on the session', () => {
  it('passes when each turn makes its calls and the identity is verified before the refund', async () => {
    const { run, sessions } = await scoreSessions(
      session('conv-1', 'refund-conversation', [[lookup], ['verify_identity', 'issue_refund']]),
    );
    expect(sessions).toHaveLength(1);
    expect(sessions[0]).toMatchObject({
      id: 'conv-1',
      testCaseId: 'refund-conversation',
      verdicts: { tool_trajectory: 'pass', tool_loops: 'pass' },
    });
    expect(sessions[0]!.reasons.tool_trajectory).toBe(
      'trajectory matches across 2 turn(s); turn 1: trajectory matches (in_order); turn 2: trajectory matches (in_order); order kept (verify_identity before issue_refund)',
    );
    // The turns are not scored one by one, and are not unmatched: they were scored together.
    expect(run.scored.filter(s => !s.trace.session)).toEqual([]);
    expect(run.unmatched).toEqual([]);
    expect(run.missing).toEqual(['refund-anywhere', 'one-trace']);
  });

  it('fails a refund before the verification, naming the turn', async () => {
    const { sessions } = await scoreSessions(
      session('conv-2', 'refund-conversation', [[lookup, 'issue_refund'], ['verify_identity']]),
    );
    expect(sessions[0]!.verdicts.tool_trajectory).toBe('fail');
    expect(sessions[0]!.reasons.tool_trajectory).toBe(
      'turn 2: trajectory does not match (in_order); missing: issue_refund (called in turn 1); ' +
        'out of order: issue_refund in turn 1 before any verify_identity (first in turn 2)',
    );
    expect(sessions[0]!.details.tool_trajectory).toMatchObject({
      failingTurn: 2,
      missingTools: ['issue_refund'],
      outOfOrder: ['issue_refund in turn 1 before any verify_identity (first in turn 2)'],
    });
  });

  it('finds a lookup repeated over three turns with tool_loops', async () => {
    const { sessions } = await scoreSessions(
      session('conv-3', 'refund-anywhere', [
        [lookup],
        [lookup],
        [lookup, 'verify_identity', 'issue_refund'],
      ]),
    );
    expect(sessions[0]!.verdicts).toEqual({ tool_trajectory: 'pass', tool_loops: 'fail' });
    expect(sessions[0]!.reasons.tool_loops).toMatch(/lookup_order.*3/);
  });

  it('fails a session with fewer turns than the test case expects', async () => {
    const { sessions } = await scoreSessions(session('conv-4', 'refund-conversation', [[lookup]]));
    expect(sessions[0]!.verdicts.tool_trajectory).toBe('fail');
    expect(sessions[0]!.reasons.tool_trajectory).toBe('turn 2: no such turn: the session has 1');
  });

  it('orders the turns by start time, whatever order the traces come in', async () => {
    const spans = session('conv-5', 'refund-conversation', [
      [lookup],
      ['verify_identity', 'issue_refund'],
    ]);
    const first = new Set(spans.slice(0, 2).map(s => s.traceId));
    const reversed = [
      ...spans.filter(s => !first.has(s.traceId)),
      ...spans.filter(s => first.has(s.traceId)),
    ];
    const { sessions } = await scoreSessions(reversed);
    expect(sessions[0]!.verdicts.tool_trajectory).toBe('pass');
    expect(sessions[0]!.turns[0]).toBe(spans[0]!.traceId);
    expect(sessions[0]!.traceId).toBe(sessions[0]!.turns[1]);
  });

  it('checks session-wide calls, forbidden tools and the ordering in any turn', async () => {
    const good = await scoreSessions(
      session('conv-6', 'refund-anywhere', [['verify_identity'], [lookup], ['issue_refund']]),
    );
    expect(good.sessions[0]!.verdicts.tool_trajectory).toBe('pass');
    const forbidden = await scoreSessions(
      session('conv-7', 'refund-anywhere', [
        ['verify_identity', 'issue_refund'],
        ['delete_account'],
      ]),
    );
    expect(forbidden.sessions[0]!.reasons.tool_trajectory).toBe(
      'session: forbidden tool called: delete_account',
    );
  });

  it('keeps sessions apart, and leaves a turn without a session id unmatched with why', async () => {
    const spans = [
      ...session('conv-a', 'refund-anywhere', [['verify_identity', 'issue_refund']]),
      ...session('conv-b', 'refund-anywhere', [['issue_refund']]),
      ...session(undefined, 'refund-anywhere', [['verify_identity']]),
    ];
    const { run, sessions } = await scoreSessions(spans);
    expect(sessions.map(s => [s.id, s.verdicts.tool_trajectory])).toEqual([
      ['conv-a', 'pass'],
      ['conv-b', 'fail'],
    ]);
    expect(run.unmatched).toHaveLength(1);
  });

  it('says why a session named by no session test case is not scored', async () => {
    const turns = [agentTrace(['lookup_order'], { rootAttributes: { 'session.id': 'x' } })];
    const run = await scoreSession('x', turns, { suites: [await suite()], rules: [] });
    expect(run).toMatchObject({
      state: 'not_scored',
      session: { id: 'x', traceIds: [turns[0]!.traceId] },
    });
    expect(run.reason).toMatch(/no session test case \(session: true\)/);
  });
});

describe('a trace of a session test case, scored alone', () => {
  it('is not scored on its own, and says it belongs to its session or lacks a session id', async () => {
    const { scoreTrace } = await import('./score-trace.js');
    const plan = { suites: [await suite()], rules: [] };
    const withId = agentTrace(['verify_identity'], {
      testCaseId: 'refund-anywhere',
      rootAttributes: { 'gen_ai.conversation.id': 'c-1' },
    });
    const a = await scoreTrace(withId.traceId, withId.spans, plan);
    expect(a).toMatchObject({
      state: 'not_scored',
      reasonCode: 'session_test_case',
      sessionId: 'c-1',
      sessionIdAttribute: 'gen_ai.conversation.id',
      endsSession: false,
    });
    expect(a.reason).toBe(
      'a turn of session test case support / refund-anywhere: scored with its session',
    );
    const withoutId = agentTrace(['verify_identity'], { testCaseId: 'refund-anywhere' });
    const b = await scoreTrace(withoutId.traceId, withoutId.spans, plan);
    expect(b.reason).toMatch(
      /but the trace carries no session id \(spanscore\.session\.id, gen_ai\.conversation\.id, session\.id/,
    );
  });
});

describe('the ids of a session’s turns', () => {
  it('are read in one walk per turn, however many suites read them (a wide span enumerated alike)', async () => {
    // Enumerations of one wide span's attributes while a session of two turns is scored, under a
    // plan of `n` suites that each read the test case id under a name of their own.
    const enumerations = async (n: number): Promise<number> => {
      const suites = await Promise.all(
        Array.from({ length: n }, (_, i) =>
          parseSuite(
            `name: s${i}\ntestCaseIdAttributes: [custom.case${i}]\nscorers: [tool_loops]\ntestCases:\n  - id: c${i}\n    session: true\n    expectedCalls: [lookup_order]\n`,
            `s${i}.yaml`,
            process.cwd(),
          ),
        ),
      );
      let count = 0;
      const wide = Object.fromEntries(Array.from({ length: 500 }, (_, k) => [`attr.${k}`, k]));
      const turns = [0, 1].map(i => {
        const trace = agentTrace([lookup], { testCaseId: 'none', atMs: i * 60_000 });
        const spans = trace.spans.map(s =>
          s === trace.spans.at(-1)
            ? {
                ...s,
                attributes: new Proxy(wide, {
                  ownKeys(target) {
                    count++;
                    return Reflect.ownKeys(target);
                  },
                }),
              }
            : s,
        );
        return { traceId: trace.traceId, spans };
      });
      await scoreSession('x', turns, { suites, rules: [] });
      return count;
    };
    const one = await enumerations(1);
    expect(one).toBeGreaterThan(0);
    expect(await enumerations(12)).toBe(one);
  });
});
