/** One question to an LLM judge, answered as JSON that `parse` accepts. */
export interface JudgeRequest<T> {
  model: string;
  /** Instructions. The data under judgement goes in `user`, delimited. */
  system: string;
  user: string;
  /** A name and JSON schema for structured output (`response_format: json_schema`). */
  schemaName: string;
  jsonSchema: Record<string, unknown>;
  /** Validates the parsed JSON; throws an `Error` whose message says what is wrong. */
  parse: (value: unknown) => T;
}

/** Token usage of a judge call (summed over a repair attempt). */
export interface JudgeUsage {
  inputTokens: number;
  outputTokens: number;
}

/** A validated answer. */
export interface JudgeAnswer<T> {
  output: T;
  model: string;
  usage: JudgeUsage;
  /** True when the answer came from the cache: the call cost nothing. */
  cached: boolean;
  /** Estimated cost in US dollars, when `judge.prices` has the model (0 when cached). */
  costUsd?: number;
  /**
   * Why the token counts are not the endpoint's: its `usage` held a count past what the call can
   * plausibly use (`JUDGE_USAGE_CEILING`) or no token count (`Infinity`, `NaN`, negative, a
   * string that is no plain decimal integer), counted at that ceiling; or only
   * `total_tokens`, split by the judge (see `endpointUsage`).
   */
  usageProblem?: string;
}

/**
 * What a layer above the endpoint's judge hears of each call it makes, a repair included: the
 * budget (`withCostAndBudget`) prices each call as it ends and refuses a repair once the first
 * call has spent the day's budget. A judge that makes one call may ignore it; its answer is then
 * priced as a whole.
 */
export interface JudgeCallGate {
  /** Before a repair call: rejects (with the error `ask` rejects with) to refuse it. */
  beforeRepair(): Promise<void>;
  /** After each call to the endpoint, with its usage and the model that answered. */
  afterCall(usage: JudgeUsage, model: string): Promise<void>;
}

/**
 * An LLM judge. `ask` resolves with a validated answer, or rejects with `SS_JUDGE_UNAVAILABLE`
 * (the endpoint failed past its retries: retryable), `SS_JUDGE_RATE_LIMITED` (429, with the
 * server's Retry-After: retryable), `SS_JUDGE_BUDGET_EXHAUSTED` (the daily budget is spent: the
 * scorer is skipped) or `SS_JUDGE_INVALID_OUTPUT` (the model's answer never matched the schema).
 * It never makes up an answer. Judges compose: caching, cost and budget, and rate limiting wrap a
 * judge and are judges themselves.
 */
export interface Judge {
  /** `gate`: told of each endpoint call, and asked before a repair (see {@link JudgeCallGate}). */
  ask<T>(request: JudgeRequest<T>, gate?: JudgeCallGate): Promise<JudgeAnswer<T>>;
}

/** The `usage` block LLM scorers put in their result details (read by `scoreToSpan` and reports). */
export function usageDetails(answer: JudgeAnswer<unknown>): Record<string, unknown> {
  return {
    model: answer.model,
    inputTokens: answer.usage.inputTokens,
    outputTokens: answer.usage.outputTokens,
    cached: answer.cached,
    ...(answer.costUsd !== undefined && { costUsd: answer.costUsd }),
    ...(answer.usageProblem !== undefined && { usageProblem: answer.usageProblem }),
  };
}
