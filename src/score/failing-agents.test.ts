import { describe, expect, it } from 'vitest';
import { failingAgents } from './failing-agents.js';
import { scored, skipped } from './score-result.js';

describe('failingAgents', () => {
  const details = {
    wrongAgent: [{ calledBy: 'billing' }, { calledBy: 7 }, { tool: 'x' }],
    forbiddenAgents: ['support', ''],
    handoffs: [
      { from: 'router', expected: false },
      { from: 'triage', expected: true },
      { from: 'billing', expected: false },
    ],
    unexpectedAgents: ['intruder'],
    failedCalls: [{ agent: 'search' }, { agent: null }],
    refusedCalls: [{ agent: 'refused-by' }],
    invalidCalls: [{ agent: 'args' }],
    unknownCalls: [{ agent: 'unknown' }],
    repeatedCalls: [{ agent: 'loop' }, { agent: 'search' }],
    overLimit: [{ agent: 'limit' }],
  };

  it('names each agent a failing result blames, once, in the order of its details', () => {
    expect(failingAgents(scored(0, 0.5, 'failed', details))).toEqual([
      'billing',
      'support',
      'router',
      'intruder',
      'search',
      'refused-by',
      'args',
      'unknown',
      'loop',
      'limit',
    ]);
  });

  it('names none for a result that passed or was not scored, or details of other shapes', () => {
    expect(failingAgents(scored(1, 0.5, 'passed', details))).toEqual([]);
    expect(failingAgents(skipped('no test case'))).toEqual([]);
    expect(
      failingAgents(
        scored(0, 0.5, 'failed', { wrongAgent: 'billing', failedCalls: { agent: 'x' } }),
      ),
    ).toEqual([]);
  });
});
