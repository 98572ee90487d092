import { describe, expect, it } from 'vitest';
import { failingAgents, MAX_FAILING_AGENTS, type FailingAgentsRest } from './failing-agents.js';
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

  /**
   * Comparisons of names while `run` runs: each `Array.prototype.includes` call as the length it
   * scans, each `Set` lookup or insertion as one.
   */
  function comparisons(run: () => void): number {
    const { includes } = Array.prototype;
    // The originals, called back with the set as `this`.
    // eslint-disable-next-line @typescript-eslint/unbound-method
    const { has, add } = Set.prototype;
    let n = 0;
    Array.prototype.includes = function (this: unknown[], ...args: [unknown, number?]) {
      n += this.length;
      return includes.apply(this, args);
    };
    Set.prototype.has = function (this: Set<unknown>, value: unknown) {
      n++;
      return has.call(this, value);
    };
    Set.prototype.add = function <T>(this: Set<T>, value: T) {
      n++;
      return add.call(this, value);
    };
    try {
      run();
    } finally {
      Array.prototype.includes = includes;
      Set.prototype.has = has;
      Set.prototype.add = add;
    }
    return n;
  }

  it('keeps the first MAX_FAILING_AGENTS of 100,000 distinct agents, counts the rest, in linear steps', () => {
    const names = Array.from({ length: 100_000 }, (_, i) => `agent-${i}`);
    // Each blamed twice: by a failed call and a repeated one.
    const result = scored(0, 0.5, 'failed', {
      failedCalls: names.map(agent => ({ agent })),
      repeatedCalls: names.map(agent => ({ agent })),
    });
    const rest: FailingAgentsRest = { more: -1 };
    let blamed: string[] = [];
    const steps = comparisons(() => (blamed = failingAgents(result, rest)));
    expect(blamed).toEqual(names.slice(0, 256));
    expect(MAX_FAILING_AGENTS).toBe(256);
    expect(rest.more).toBe(100_000 - 256);
    // 200,000 entries, each at most 8 comparisons with the first names kept, then 2 set steps:
    // linear (the list scanned at each entry was about 10^10).
    expect(steps).toBeLessThanOrEqual(200_000 * 10);
    // A result within the bound leaves none out.
    failingAgents(scored(0, 0.5, 'failed', details), rest);
    expect(rest.more).toBe(0);
  });
});
