import { describe, expect, it } from 'vitest';
import { agentTrace } from '../../../test/helpers/trace-builder.js';
import { runScorers } from '../run-scorers.js';
import type { Judge, JudgeRequest } from './judge.js';
import { judgeCost, withCostAndBudget } from './metered-judge.js';
import { createMemorySpendLedger } from './spend-ledger.js';
import { createRubricScorer } from './rubric.js';

/** A judge that answers every request with the same usage, and counts its calls. */
function fakeJudge(usage = { inputTokens: 1000, outputTokens: 200 }) {
  const asked: string[] = [];
  const judge: Judge = {
    ask<T>(request: JudgeRequest<T>) {
      asked.push(request.model);
      return Promise.resolve({
        output: request.parse({ score: 4, explanation: 'fine' }),
        model: `${request.model}-2026-01-01`,
        usage,
        cached: false,
      });
    },
  };
  return { judge, asked };
}

const request = (model: string): JudgeRequest<unknown> => ({
  model,
  system: 's',
  user: 'u',
  schemaName: 'x',
  jsonSchema: {},
  parse: v => v,
});

const prices = { small: { inputPerMillionTokens: 0.15, outputPerMillionTokens: 0.6 } };

describe('withCostAndBudget', () => {
  it('prices usage per million tokens', () => {
    // 1000 × 0.15 / 1e6 + 200 × 0.6 / 1e6 = 0.00015 + 0.00012
    expect(judgeCost({ inputTokens: 1000, outputTokens: 200 }, prices.small)).toBeCloseTo(
      0.00027,
      12,
    );
  });

  it('adds each answer’s cost to the UTC day, and leaves unpriced models without a cost', async () => {
    const { judge } = fakeJudge();
    const ledger = createMemorySpendLedger();
    const at = Date.parse('2026-11-22T23:59:00Z');
    const metered = withCostAndBudget(judge, { prices, ledger, now: () => at });
    expect((await metered.ask(request('small'))).costUsd).toBeCloseTo(0.00027, 12);
    expect((await metered.ask(request('unpriced'))).costUsd).toBeUndefined();
    expect(await ledger.spent('2026-11-22')).toBeCloseTo(0.00027, 12);
    expect(await ledger.spent('2026-11-23')).toBe(0);
  });

  it('refuses calls once the day’s budget is spent, and starts again the next UTC day', async () => {
    const { judge, asked } = fakeJudge();
    const ledger = createMemorySpendLedger();
    let now = Date.parse('2026-11-22T12:00:00Z');
    const metered = withCostAndBudget(judge, {
      prices,
      dailyBudgetUsd: 0.0005,
      ledger,
      now: () => now,
    });
    await metered.ask(request('small')); // 0.00027
    await metered.ask(request('small')); // 0.00054: over, but it was under when it started
    await expect(metered.ask(request('small'))).rejects.toMatchObject({
      code: 'SS_JUDGE_BUDGET_EXHAUSTED',
      message: expect.stringContaining('$0.0005 is spent ($0.0005 on 2026-11-22 UTC)'),
    });
    expect(asked).toHaveLength(2);
    now = Date.parse('2026-11-23T00:00:01Z');
    await metered.ask(request('small'));
    expect(asked).toHaveLength(3);
  });

  it('with a budget, a model without a price is refused, naming it', async () => {
    const metered = withCostAndBudget(fakeJudge().judge, {
      prices,
      dailyBudgetUsd: 1,
      ledger: createMemorySpendLedger(),
    });
    await expect(metered.ask(request('big'))).rejects.toMatchObject({
      code: 'SS_USAGE',
      message: expect.stringContaining('no price for model "big"'),
    });
  });

  it('an LLM scorer past the budget is skipped with the reason, not failed', async () => {
    const ledger = createMemorySpendLedger();
    await ledger.add(new Date().toISOString().slice(0, 10), 5);
    const judge = withCostAndBudget(fakeJudge().judge, { prices, dailyBudgetUsd: 5, ledger });
    const scorer = createRubricScorer(judge, 'small');
    const [outcome] = await runScorers(
      agentTrace(['weather']),
      undefined,
      [{ scorer, options: scorer.parseOptions({ criteria: 'c', min: 1, max: 5 }) }],
      new Map(),
    );
    expect(outcome!.result).toEqual({
      status: 'skipped',
      reason: expect.stringMatching(/^the judge's daily budget of \$5 is spent/),
    });
  });
});
