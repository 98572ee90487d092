import type { Scorer } from '../scorer.js';
import type { LlmContext } from './llm-context.js';
import { createRubricScorer } from './rubric.js';
import { createToolCallAppropriatenessScorer } from './tool-call-appropriateness.js';

/** The names of the LLM-judged scorers, which exist only when a judge is configured. */
export const LLM_SCORER_NAMES = ['tool_call_appropriateness', 'rubric'] as const;

/** The LLM scorers on a judge, by name. */
export function createLlmScorers(context: LlmContext): Map<string, Scorer<unknown>> {
  return new Map<string, Scorer<unknown>>([
    [
      'tool_call_appropriateness',
      createToolCallAppropriatenessScorer(context.judge, context.model),
    ],
    ['rubric', createRubricScorer(context.judge, context.model)],
  ]);
}

/** The error message for a suite or rule that names an LLM scorer without a judge configured. */
export function needsJudgeMessage(name: string): string {
  return `scorer "${name}" needs an LLM judge: set SPANSCORE_JUDGE_MODEL and OPENAI_API_KEY (and OPENAI_BASE_URL for an endpoint other than OpenAI's)`;
}
