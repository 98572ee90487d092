import type { Judge } from './judge.js';
import { createOpenAiJudge } from './openai-judge.js';

/** A judge and the model scorers use unless their `model` option says otherwise. */
export interface LlmContext {
  judge: Judge;
  model: string;
}

/**
 * The judge configured by the environment, or `undefined` when `SPANSCORE_JUDGE_MODEL` is unset:
 * `OPENAI_BASE_URL` (any OpenAI-compatible endpoint: OpenAI, Azure OpenAI, Ollama, vLLM, LM
 * Studio), `OPENAI_API_KEY`, `SPANSCORE_JUDGE_TIMEOUT_MS` (default 60000) and
 * `SPANSCORE_JUDGE_MAX_RETRIES` (default 3).
 */
export function judgeFromEnv(env: NodeJS.ProcessEnv = process.env): LlmContext | undefined {
  const model = env.SPANSCORE_JUDGE_MODEL;
  if (!model) return undefined;
  const judge = createOpenAiJudge({
    ...(env.OPENAI_BASE_URL && { baseURL: env.OPENAI_BASE_URL }),
    ...(env.OPENAI_API_KEY && { apiKey: env.OPENAI_API_KEY }),
    ...(env.SPANSCORE_JUDGE_TIMEOUT_MS && { timeoutMs: Number(env.SPANSCORE_JUDGE_TIMEOUT_MS) }),
    ...(env.SPANSCORE_JUDGE_MAX_RETRIES && { maxRetries: Number(env.SPANSCORE_JUDGE_MAX_RETRIES) }),
  });
  return { judge, model };
}
