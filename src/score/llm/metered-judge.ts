import { SpanscoreError } from '../../errors/spanscore-error.js';
import type { Judge, JudgeAnswer, JudgeRequest, JudgeUsage } from './judge.js';
import type { SpendLedger } from './spend-ledger.js';

/** What a model costs, in US dollars per million tokens (the way providers list prices). */
export interface ModelPrice {
  inputPerMillionTokens: number;
  outputPerMillionTokens: number;
}

/** Options of {@link withCostAndBudget}. */
export interface CostAndBudgetOptions {
  /** Prices by model name, as scorers and `judge.model` name them. */
  prices: Readonly<Record<string, ModelPrice>>;
  /** Dollars per UTC day after which calls are refused with `SS_JUDGE_BUDGET_EXHAUSTED`. */
  dailyBudgetUsd?: number;
  ledger: SpendLedger;
  /** The clock, in ms. @defaultValue Date.now */
  now?: () => number;
}

/** The cost of `usage` at `price`, in US dollars. */
export function judgeCost(usage: JudgeUsage, price: ModelPrice): number {
  return (
    (usage.inputTokens * price.inputPerMillionTokens +
      usage.outputTokens * price.outputPerMillionTokens) /
    1_000_000
  );
}

/**
 * A judge that prices every answer (`costUsd`, when `prices` has the model, else left out) and adds
 * it to the day's spend. With `dailyBudgetUsd`, a call on a UTC day whose spend has reached the
 * budget is refused with `SS_JUDGE_BUDGET_EXHAUSTED`, which scorers report as `skipped` with the
 * reason; every model then needs a price (`SS_USAGE` otherwise). The check happens before a call
 * and the cost is added after it, so calls in flight when the budget runs out can overshoot it by
 * their own cost. Wrap it inside the cache, so cached answers stay free and allowed.
 */
export function withCostAndBudget(judge: Judge, options: CostAndBudgetOptions): Judge {
  const now = options.now ?? Date.now;
  const budget = options.dailyBudgetUsd;
  return {
    async ask<T>(request: JudgeRequest<T>): Promise<JudgeAnswer<T>> {
      const day = new Date(now()).toISOString().slice(0, 10);
      const price = options.prices[request.model];
      if (budget !== undefined) {
        if (!price) {
          throw new SpanscoreError(
            'SS_USAGE',
            `judge.dailyBudgetUsd is set but judge.prices has no price for model "${request.model}"`,
          );
        }
        const spent = await options.ledger.spent(day);
        if (spent >= budget) {
          throw new SpanscoreError(
            'SS_JUDGE_BUDGET_EXHAUSTED',
            `the judge's daily budget of $${budget} is spent ($${spent.toFixed(4)} on ${day} UTC); LLM scorers are skipped until 00:00 UTC`,
          );
        }
      }
      const answer = await judge.ask(request);
      const effective = price ?? options.prices[answer.model];
      if (!effective) return answer;
      const costUsd = judgeCost(answer.usage, effective);
      if (costUsd > 0) await options.ledger.add(day, costUsd);
      return { ...answer, costUsd };
    },
  };
}
