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
}

/**
 * An LLM judge. `ask` resolves with a validated answer, or rejects with `SS_JUDGE_UNAVAILABLE`
 * (the endpoint failed past its retries: retryable) or `SS_JUDGE_INVALID_OUTPUT` (the model's
 * answer never matched the schema). It never makes up an answer.
 */
export interface Judge {
  ask<T>(request: JudgeRequest<T>): Promise<JudgeAnswer<T>>;
}
