/**
 * The judge client's defaults, for `createOpenAiJudge` and the config schema (`judge.timeoutMs`,
 * `judge.maxRetries`) alike: defined here, below both, so src/config imports nothing from
 * src/judge (which reads the config's types; .dependency-cruiser.cjs).
 */
export const JUDGE_DEFAULTS = {
  /** Per judge call. */
  timeoutMs: 60_000,
  /** Retries by the `openai` client (429, 5xx, timeouts), with its backoff and Retry-After. */
  maxRetries: 3,
  /** Bytes of one judge answer read at most. */
  maxResponseBytes: 4 * 1024 * 1024,
  /** Output tokens one judge answer may use (sent as `max_tokens` or `max_completion_tokens`). */
  maxOutputTokens: 1024,
  /**
   * The request field `maxOutputTokens` goes in: `max_tokens`, which Ollama, vLLM and LM Studio
   * read; OpenAI's newer models refuse it and want `max_completion_tokens`.
   */
  maxTokensParameter: 'max_tokens',
} as const;
