import type { Judge } from './judge.js';

/**
 * What LLM scorers are built with: a judge (any {@link Judge}: the configured OpenAI-compatible
 * stack from `judge/create-llm-context.ts`, or a test double) and the model scorers use unless
 * their `model` option says otherwise.
 */
export interface LlmContext {
  judge: Judge;
  model: string;
}
