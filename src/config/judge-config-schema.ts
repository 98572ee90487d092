import { z } from 'zod';
import { JUDGE_DEFAULTS } from './judge-defaults.js';

/** A model's prices, as `judge.prices` holds them by model name. */
const priceSchema = z
  .object({
    inputPerMillionTokens: z
      .number()
      .nonnegative()
      .describe('US dollars per million input tokens.'),
    outputPerMillionTokens: z
      .number()
      .nonnegative()
      .describe('US dollars per million output tokens.'),
  })
  .strict();

/**
 * The LLM judge behind `tool_call_appropriateness` and `rubric`. The endpoint and key default to
 * `OPENAI_BASE_URL` and `OPENAI_API_KEY` (read by the `openai` client) unless set here.
 */
export const judgeConfigSchema = z
  .object({
    model: z
      .string()
      .min(1)
      .optional()
      .describe('The judge model. LLM scorers exist only when it is set.'),
    baseUrl: z
      .string()
      .url()
      .optional()
      .describe(
        'Any OpenAI-compatible endpoint (OpenAI, Ollama, vLLM). Default: `OPENAI_BASE_URL`, else OpenAI.',
      ),
    apiKey: z.string().min(1).optional().describe('The API key. Default: `OPENAI_API_KEY`.'),
    timeoutMs: z.coerce
      .number()
      .int()
      .positive()
      .default(JUDGE_DEFAULTS.timeoutMs)
      .describe("Per judge call, the answer's last byte included."),
    maxResponseBytes: z.coerce
      .number()
      .int()
      .positive()
      .default(JUDGE_DEFAULTS.maxResponseBytes)
      .describe(
        'Bytes of one judge answer read at most; a longer answer is not read past them and the call fails, saying so.',
      ),
    maxOutputTokens: z.coerce
      .number()
      .int()
      .positive()
      .max(1_000_000)
      .default(JUDGE_DEFAULTS.maxOutputTokens)
      .describe(
        "Output tokens one judge answer may use, sent with each call (`judge.maxTokensParameter`); an endpoint's count past it is counted as it, and the result says so. An answer stopped at it that is not valid JSON fails without a repair, naming this key (reasoning models spend their reasoning tokens from it too).",
      ),
    maxTokensParameter: z
      .enum(['max_tokens', 'max_completion_tokens'])
      .default(JUDGE_DEFAULTS.maxTokensParameter)
      .describe(
        "The request field `maxOutputTokens` is sent in: `max_tokens` (Ollama, vLLM, LM Studio, older OpenAI models) or `max_completion_tokens` (OpenAI's newer models, which refuse `max_tokens`). An endpoint answering 400 naming the field is asked again with the other, which is then sent for the rest of the process, said once in the log.",
      ),
    maxRetries: z.coerce
      .number()
      .int()
      .min(0)
      .default(JUDGE_DEFAULTS.maxRetries)
      .describe(
        'Retries of a failed judge call by the `openai` client, in `spanscore score`. The service retries judge calls in its judge pass instead (`judge.attempts`, on either driver), so the client does not.',
      ),
    concurrency: z.coerce
      .number()
      .int()
      .positive()
      .default(4)
      .describe('Judge calls at once, per process.'),
    rateLimit: z
      .object({
        max: z.coerce
          .number()
          .int()
          .positive()
          .default(10)
          .describe(
            'At most this many judge calls started per `durationMs` (per process; across workers with BullMQ).',
          ),
        durationMs: z.coerce
          .number()
          .int()
          .positive()
          .default(1000)
          .describe('The interval of `rateLimit.max`.'),
      })
      .strict()
      .prefault({}),
    maxQueuedTraces: z.coerce
      .number()
      .int()
      .positive()
      .default(1000)
      .describe(
        'Memory driver: traces waiting for the judge or being judged, each holding its spans; a trace past them is not judged and its run record says so (the bullmq driver keeps them in Redis, under its memory admission).',
      ),
    attempts: z.coerce
      .number()
      .int()
      .positive()
      .default(5)
      .describe('BullMQ judge jobs: tries for a 5xx, a timeout or a failed export.'),
    backoffMs: z.coerce
      .number()
      .int()
      .positive()
      .default(2000)
      .describe('BullMQ judge jobs: the first backoff between tries (exponential).'),
    cacheTtlSeconds: z.coerce
      .number()
      .int()
      .positive()
      .default(7 * 24 * 3600)
      .describe('How long the Redis judge cache keeps an answer (BullMQ driver).'),
    prices: z
      .record(z.string().min(1), priceSchema)
      .default({})
      .describe(
        'US dollars per million tokens, by model name (`{ model: { inputPerMillionTokens, outputPerMillionTokens } }`): results then carry a cost estimate.',
      ),
    dailyBudgetUsd: z.coerce
      .number()
      .positive()
      .optional()
      .describe(
        'US dollars per UTC day; once spent, LLM scorers are skipped with the reason. Needs a price for the judge model.',
      ),
  })
  .strict()
  .prefault({});
