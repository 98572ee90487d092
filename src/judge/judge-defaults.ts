/**
 * The judge client's defaults, for `createOpenAiJudge` and the config schema (`judge.timeoutMs`,
 * `judge.maxRetries`) alike.
 */
export const JUDGE_DEFAULTS = {
  /** Per judge call. */
  timeoutMs: 60_000,
  /** Retries by the `openai` client (429, 5xx, timeouts), with its backoff and Retry-After. */
  maxRetries: 3,
} as const;
