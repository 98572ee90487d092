/**
 * The catalogue of every error spanscore raises on purpose. Each code names one kind of failure;
 * `category` says whose fault it is, which decides retries (only `upstream` is retryable) and exit
 * codes (`input` → 2). `docs/errors.md` documents every code; a test keeps the two in sync.
 */
export const ERROR_CODES = {
  SS_TRACE_INPUT_INVALID: {
    category: 'input',
    summary: 'A trace file or request is not valid OTLP (JSON or protobuf).',
  },
  SS_TRACE_INPUT_TOO_LARGE: {
    category: 'input',
    summary:
      'A trace request or file holds more spans or nested items than a request may (`receiver.maxSpansPerRequest`, `receiver.maxItemsPerRequest`); the receiver answers 413. A trace file read from disk is past `--max-decompressed-mb` (256 MiB), as read or decompressed.',
  },
  SS_INPUT_NOT_FOUND: {
    category: 'input',
    summary: 'An input path does not exist or cannot be read.',
  },
  SS_SUITE_INVALID: {
    category: 'input',
    summary:
      'A suite file does not match the suite schema, or is past the bounds on a suite (8 MiB, a million YAML tokens).',
  },
  SS_SCORER_UNKNOWN: {
    category: 'input',
    summary: 'A suite names a scorer that is neither built in nor defined by a custom module.',
  },
  SS_CUSTOM_SCORER_INVALID: {
    category: 'input',
    summary: 'A custom scorer module cannot be loaded or does not export scorers.',
  },
  SS_SUMMARY_INVALID: {
    category: 'input',
    summary:
      'A run summary (`score --summary`, `compare`) cannot be read, is not one, is of a version this spanscore does not read, or is past the bounds on one (32 MiB, a million JSON items).',
  },
  SS_INGEST_SATURATED: {
    category: 'upstream',
    summary:
      'The span buffer is full; the receiver answers 429 with Retry-After so exporters retry.',
  },
  SS_INGEST_UNAVAILABLE: {
    category: 'upstream',
    summary: 'The span store (Redis) cannot be reached; the receiver answers 503 with Retry-After.',
  },
  SS_REDIS_FAILED: {
    category: 'upstream',
    summary:
      'A Redis command of a worker failed (a turn joining its session, a judge job queued); the trace job is retried.',
  },
  SS_EXPORT_FAILED: {
    category: 'upstream',
    summary: 'Evaluation spans could not be exported to the OTLP backend; the job is retried.',
  },
  SS_JUDGE_UNAVAILABLE: {
    category: 'upstream',
    summary: 'The LLM judge endpoint failed, timed out or rate-limited past its retries.',
  },
  SS_JUDGE_RATE_LIMITED: {
    category: 'upstream',
    summary:
      'The LLM judge endpoint answered 429; in the worker the judge queue pauses for its Retry-After.',
  },
  SS_JUDGE_BUDGET_EXHAUSTED: {
    category: 'input',
    summary:
      "The day's judge budget (`judge.dailyBudgetUsd`) is spent; LLM scorers are skipped until the next UTC day.",
  },
  SS_JUDGE_INVALID_OUTPUT: {
    category: 'internal',
    summary:
      'The LLM judge answered with JSON that does not match the schema, even after one repair attempt; or its answer was stopped at `judge.maxOutputTokens` (finish_reason `length`) before it was whole, and not repaired (a repair would be stopped there too).',
  },
  SS_INTERNAL_ERROR: {
    category: 'internal',
    summary:
      "A worker's step failed with an error of spanscore's own code, not of Redis or a service it calls (a bug); the job fails without a retry, and the message names the step.",
  },
  SS_USAGE: {
    category: 'input',
    summary: 'The command line is not valid.',
  },
} as const satisfies Record<string, { category: ErrorCategory; summary: string }>;

/** Whose fault an error is: the user's input, our code, or a service we call. */
export type ErrorCategory = 'input' | 'internal' | 'upstream';

/** One of the codes in {@link ERROR_CODES}. */
export type ErrorCode = keyof typeof ERROR_CODES;
