import type { JudgeUsage } from './judge.js';

/** What a judge call that rejected had spent before it did: its endpoint calls that answered. */
export interface JudgeSpend {
  /** Tokens of those calls, summed. */
  usage: JudgeUsage;
  /** Their cost as the spend ledger counted it, in US dollars (0 when the model has no price). */
  costUsd: number;
}

/** The property a rejection carries its spend in (not enumerable: logs and JSON leave it out). */
const SPEND = Symbol.for('spanscore.judgeSpend');

/**
 * What the call that rejected with `error` had spent, when the layer that counts it
 * (`withCostAndBudget`) said so ({@link withJudgeSpend}); `undefined` otherwise (nothing answered,
 * or a judge without that layer). Metrics count it as the ledger did: a call whose repair was
 * refused or invalid still paid for what was answered.
 */
export function judgeSpendOf(error: unknown): JudgeSpend | undefined {
  return typeof error === 'object' && error !== null
    ? ((error as Record<symbol, JudgeSpend | undefined>)[SPEND] ?? undefined)
    : undefined;
}

/** `error`, carrying `spend` for {@link judgeSpendOf} (a non-object is returned as it is). */
export function withJudgeSpend(error: unknown, spend: JudgeSpend): unknown {
  if (typeof error === 'object' && error !== null && Object.isExtensible(error))
    Object.defineProperty(error, SPEND, { value: spend, configurable: true });
  return error;
}
