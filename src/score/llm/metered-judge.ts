import { SpanscoreError } from '../../errors/spanscore-error.js';
import type { Judge, JudgeAnswer, JudgeRequest, JudgeUsage } from './judge.js';
import { withJudgeSpend } from './judge-spend.js';
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
 * their own cost. A repair call (the judge's second, after an invalid answer) is checked too: each
 * endpoint call is priced as it ends ({@link JudgeCallGate}), so a first call that spent the budget
 * has its repair refused, the same error saying so. A call that rejects after an endpoint call
 * answered (its repair refused, invalid or failed) carries what those calls used and the ledger
 * was charged (`judgeSpendOf`), for the metrics. Wrap it inside the cache, so cached answers stay
 * free and allowed.
 */
export function withCostAndBudget(judge: Judge, options: CostAndBudgetOptions): Judge {
  const now = options.now ?? Date.now;
  const budget = options.dailyBudgetUsd;
  return {
    async ask<T>(request: JudgeRequest<T>): Promise<JudgeAnswer<T>> {
      const day = new Date(now()).toISOString().slice(0, 10);
      const price = options.prices[request.model];
      const check = async (what: string): Promise<void> => {
        if (budget === undefined) return;
        const spent = await options.ledger.spent(day);
        if (spent >= budget) {
          throw new SpanscoreError(
            'SS_JUDGE_BUDGET_EXHAUSTED',
            `${what}the judge's daily budget of $${budget} is spent ($${spent.toFixed(4)} on ${day} UTC); LLM scorers are skipped until 00:00 UTC`,
          );
        }
      };
      if (budget !== undefined && !price) {
        throw new SpanscoreError(
          'SS_USAGE',
          `judge.dailyBudgetUsd is set but judge.prices has no price for model "${request.model}"`,
        );
      }
      await check('');
      let calls = 0;
      let costUsd: number | undefined;
      const used = { inputTokens: 0, outputTokens: 0 };
      const charge = async (usage: JudgeUsage, model: string): Promise<void> => {
        used.inputTokens += usage.inputTokens;
        used.outputTokens += usage.outputTokens;
        const effective = price ?? options.prices[model];
        if (!effective) return;
        const cost = judgeCost(usage, effective);
        costUsd = (costUsd ?? 0) + cost;
        if (cost > 0) await options.ledger.add(day, cost);
      };
      const answer = await judge
        .ask(request, {
          beforeRepair: () =>
            check('the repair of an invalid answer was not asked (its first call was paid): '),
          afterCall: (usage, model) => (calls++, charge(usage, model)),
        })
        .catch((error: unknown) => {
          throw calls === 0 ? error : withJudgeSpend(error, { usage: used, costUsd: costUsd ?? 0 });
        });
      // A judge that ignores the gate: its answer priced as a whole.
      if (calls === 0) await charge(answer.usage, answer.model);
      return costUsd === undefined ? answer : { ...answer, costUsd };
    },
  };
}
