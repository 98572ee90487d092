import type { JudgeConfig } from '../config/config-schema.js';
import type { ErrorCode } from '../errors/error-codes.js';
import { isSpanscoreError } from '../errors/spanscore-error.js';
import { withJudgeCache } from '../score/llm/cached-judge.js';
import type { Judge, JudgeAnswer, JudgeRequest } from '../score/llm/judge.js';
import { createMemoryJudgeCache, type JudgeCache } from '../score/llm/judge-cache.js';
import { judgeSpendOf } from '../score/llm/judge-spend.js';
import type { LlmContext } from '../score/llm/llm-context.js';
import { withCostAndBudget } from '../score/llm/metered-judge.js';
import { withRateLimit } from '../score/llm/rate-limited-judge.js';
import { createMemorySpendLedger, type SpendLedger } from '../score/llm/spend-ledger.js';
import { createOpenAiJudge } from './openai-judge.js';

/** One judge call, as metrics and logs see it. */
export interface JudgeCallEvent {
  /** The model asked for (as configured), not the snapshot the server answered with. */
  model: string;
  /** `answered`, `cached`, or the error code (`error` for an error outside the catalogue). */
  outcome: 'answered' | 'cached' | ErrorCode | 'error';
  /**
   * Tokens and cost of the endpoint calls made, a failed call's included (its first answer before
   * a repair that was refused, invalid or failed): what the spend ledger counted.
   */
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
}

/** Where the judge keeps its state, and who retries and rate-limits it. */
export interface LlmContextParts {
  /**
   * `process`: this process rate-limits calls (p-queue: `spanscore score`, the memory driver).
   * `queue`: the BullMQ judge queue does, across workers.
   */
  limits: 'process' | 'queue';
  /**
   * Who retries a failed call, one owner only: `client`, the `openai` client (`judge.maxRetries`,
   * with its backoff and Retry-After: `spanscore score`, where nothing else would); `queue`, the
   * driver's judge pass (`judge.attempts`), so the client does not retry and a 429 reaches it.
   */
  retries: 'client' | 'queue';
  /** @defaultValue an in-memory LRU cache */
  cache?: JudgeCache;
  /** @defaultValue an in-memory ledger */
  ledger?: SpendLedger;
  onCall?: (event: JudgeCallEvent) => void;
  onCacheError?: (error: unknown) => void;
  /** Where the judge says what it changed for the process. @defaultValue a line on stderr */
  log?: (line: string) => void;
}

/**
 * The judge the config describes, or `undefined` when `judge.model` (`SPANSCORE_JUDGE_MODEL`) is
 * unset. Layers, outermost first: call events, the cache (hits are free and allowed past the
 * budget), cost and daily budget, the per-process rate limit (`limits: 'process'` only), the
 * `openai` client on any OpenAI-compatible endpoint.
 */
export function createLlmContext(
  config: JudgeConfig,
  parts: LlmContextParts,
): LlmContext | undefined {
  if (!config.model) return undefined;
  let judge: Judge = createOpenAiJudge({
    ...(config.baseUrl && { baseURL: config.baseUrl }),
    ...(config.apiKey && { apiKey: config.apiKey }),
    timeoutMs: config.timeoutMs,
    maxResponseBytes: config.maxResponseBytes,
    maxOutputTokens: config.maxOutputTokens,
    maxTokensParameter: config.maxTokensParameter,
    maxRetries: parts.retries === 'queue' ? 0 : config.maxRetries,
    ...(parts.log && { log: parts.log }),
  });
  if (parts.limits === 'process')
    judge = withRateLimit(judge, config.rateLimit, config.concurrency);
  judge = withCostAndBudget(judge, {
    prices: config.prices,
    ...(config.dailyBudgetUsd !== undefined && { dailyBudgetUsd: config.dailyBudgetUsd }),
    ledger: parts.ledger ?? createMemorySpendLedger(),
  });
  judge = withJudgeCache(judge, parts.cache ?? createMemoryJudgeCache(), parts.onCacheError);
  if (parts.onCall) judge = observed(judge, parts.onCall);
  return { judge, model: config.model };
}

function observed(judge: Judge, onCall: (event: JudgeCallEvent) => void): Judge {
  return {
    async ask<T>(request: JudgeRequest<T>): Promise<JudgeAnswer<T>> {
      try {
        const answer = await judge.ask(request);
        onCall({
          model: request.model,
          outcome: answer.cached ? 'cached' : 'answered',
          inputTokens: answer.usage.inputTokens,
          outputTokens: answer.usage.outputTokens,
          costUsd: answer.costUsd ?? 0,
        });
        return answer;
      } catch (error) {
        // What its endpoint calls spent before it rejected, as the ledger counted it.
        const spent = judgeSpendOf(error);
        onCall({
          model: request.model,
          outcome: isSpanscoreError(error) ? error.code : 'error',
          inputTokens: spent?.usage.inputTokens ?? 0,
          outputTokens: spent?.usage.outputTokens ?? 0,
          costUsd: spent?.costUsd ?? 0,
        });
        throw error;
      }
    },
  };
}
