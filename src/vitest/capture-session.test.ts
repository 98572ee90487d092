import { describe, expect, it } from 'vitest';
import { traced } from '../capture/traced.js';
import { scoreTrace } from '../score/score-trace.js';
import { sessionDelayMs, sessionTurnOf } from '../queue/session-policy.js';
import { parseSuite } from '../suite/load-suite.js';
import { captureSession } from './index.js';

const lookupOrder = traced('lookup_order', (orderId: string) => ({ orderId, status: 'delivered' }));
const verifyIdentity = traced('verify_identity', (dateOfBirth: string) => ({
  verified: dateOfBirth === '1990-01-01',
}));
const issueRefund = traced('issue_refund', (orderId: string) => ({ refundId: `R-${orderId}` }));

/** A support agent's turn: what the user said decides which tools run. */
function supportTurn(message: string, refundFirst = false): string {
  if (message.includes('refund')) {
    lookupOrder('A1');
    if (refundFirst) issueRefund('A1');
    return 'Please confirm your date of birth.';
  }
  verifyIdentity('1990-01-01');
  if (!refundFirst) issueRefund('A1');
  return 'Refunded.';
}

const conversation = (refundFirst: boolean) =>
  captureSession(
    async turn => {
      await turn(() => supportTurn('I want a refund for order A1', refundFirst));
      await turn(() => supportTurn('1990-01-01', refundFirst));
    },
    { sessionId: 'chat-1', testCaseId: 'refund' },
  );

describe('captureSession', () => {
  it('captures each turn as a trace of the session, and the conversation as one', async () => {
    const chat = await conversation(false);
    expect(chat.turns).toHaveLength(2);
    expect(chat.turns.map(t => t.result)).toEqual([
      'Please confirm your date of birth.',
      'Refunded.',
    ]);
    expect(new Set(chat.turns.map(t => t.traceId)).size).toBe(2);
    expect(chat.session.id).toBe('chat-1');
    expect(chat.session.turns.map(t => [t.traceId, t.calls])).toEqual([
      [chat.turns[0]!.traceId, 1],
      [chat.turns[1]!.traceId, 2],
    ]);
    expect(chat.toolNames).toEqual(['lookup_order', 'verify_identity', 'issue_refund']);
    expect(chat.toolSequence.map(c => c.turn)).toEqual([0, 1, 1]);
    // Each turn's root carries the session id and the test case id, as the service reads them.
    const run = await scoreTrace(chat.turns[0]!.traceId, chat.turns[0]!.spans, {
      suites: [],
      rules: [],
    });
    expect([run.sessionId, run.sessionIdAttribute, run.testCaseId]).toEqual([
      'chat-1',
      'spanscore.session.id',
      'refund',
    ]);
  });

  it('takes the matchers over the conversation and over one turn', async () => {
    const chat = await conversation(false);
    expect(chat).toHaveCalledToolsInOrder(['lookup_order', 'verify_identity', 'issue_refund']);
    expect(chat.turns[1]).toHaveCalledToolsInOrder(['verify_identity', 'issue_refund']);
    expect(chat).not.toHaveRepeatedToolCalls();
    await expect(chat).toPassScorer('tool_trajectory', {
      turns: [
        { expectedCalls: [{ name: 'lookup_order' }] },
        { expectedTools: ['verify_identity', 'issue_refund'] },
      ],
      before: [['verify_identity', 'issue_refund']],
    });
  });

  it('fails a session test case on the turn that broke it, saying so', async () => {
    const chat = await conversation(true);
    let message = '';
    try {
      await expect(chat).toPassScorer('tool_trajectory', {
        before: [['verify_identity', 'issue_refund']],
      });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain('Expected tool_trajectory to pass; it gave fail (score 0)');
    expect(message).toContain('out of order: issue_refund in turn 1 before any verify_identity');
  });

  it('scores as the service scores: the same verdict from a suite’s session test case', async () => {
    const chat = await conversation(true);
    const suite = await parseSuite(
      'name: s\nscorers: [tool_trajectory]\ntestCases:\n  - id: refund\n    session: true\n    before: [verify_identity, issue_refund]\n',
      's.yaml',
      process.cwd(),
    );
    const { scoreSession } = await import('../score/score-session.js');
    const run = await scoreSession('chat-1', chat.turns, { suites: [suite], rules: [] });
    expect(run.results[0]!.outcomes[0]!.result).toMatchObject({
      label: 'fail',
      reason: 'out of order: issue_refund in turn 1 before any verify_identity (first in turn 2)',
    });
  });

  it('ends its session when the callback returns: the last turn carries the end marker', async () => {
    const chat = await conversation(false);
    const ends = chat.turns.map(t => t.root?.attributes['spanscore.session.end']);
    expect(ends).toEqual([undefined, true]);
    // As the live service reads a turn: the last one ends the session, scored at once.
    const suite = await parseSuite(
      'name: s\nscorers: [tool_trajectory]\ntestCases:\n  - id: refund\n    session: true\n    before: [verify_identity, issue_refund]\n',
      's.yaml',
      process.cwd(),
    );
    const plan = { suites: [suite], rules: [], sessionIdleMs: 600_000 };
    const policy = { idleMs: 600_000, maxTraces: 50, maxAgeMs: 86_400_000 };
    const [first, last] = await Promise.all(
      chat.turns.map(t => scoreTrace(t.traceId, t.spans, plan)),
    );
    expect([first!.endsSession, last!.endsSession]).toEqual([false, true]);
    expect(last!.reason).toBe(
      'a turn of session test case s / refund: scored with its session: at once, this turn marks the end (spanscore.session.end)',
    );
    const delays = [first!, last!].map(run =>
      sessionDelayMs(policy, sessionTurnOf(run, run.traceId)!, false, 0),
    );
    expect(delays).toEqual([600_000, 0]);
    // A conversation of one turn ends with it.
    const one = await captureSession(async turn => {
      await turn(() => supportTurn('I want a refund for order A1'));
    });
    expect(one.turns[0]!.root?.attributes['spanscore.session.end']).toBe(true);
  });

  it('refuses what it cannot capture, naming it', async () => {
    await expect(captureSession('no' as never)).rejects.toThrow(
      'captureSession: expected a function, got string',
    );
    await expect(captureSession(() => undefined)).rejects.toThrow(
      'captureSession: no turn was captured (call turn())',
    );
    await expect(captureSession(async turn => turn(() => 1), { sessionId: '' })).rejects.toThrow(
      'captureSession: sessionId must be a non-empty string',
    );
  });
});
