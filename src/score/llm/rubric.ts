import { z } from 'zod';
import type { Scorer } from '../scorer.js';
import { baseOptionsSchema, parseScorerOptions } from '../scorer-options.js';
import { round2, scored } from '../score-result.js';
import { usageDetails, type Judge } from './judge.js';
import { RUBRIC_JSON_SCHEMA, RUBRIC_SYSTEM, rubricOutput, rubricPrompt } from './rubric.prompt.js';

const optionsSchema = baseOptionsSchema
  .extend({
    /** What a good run looks like, in words. */
    criteria: z.string().min(1),
    /** The judge's scale; the result is normalized to 0..1. @defaultValue 1 to 5 */
    min: z.number().default(1),
    max: z.number().default(5),
    model: z.string().min(1).optional(),
  })
  .refine(o => o.max > o.min, { message: 'max must be greater than min', path: ['max'] });

/** Options of the `rubric` scorer. */
export type RubricOptions = z.infer<typeof optionsSchema>;

/**
 * A general LLM judge: the suite's `criteria` and a score range; the judge scores the run (request,
 * tool calls, answer) and explains. The score is normalized to 0..1, `(score - min) / (max - min)`,
 * and labelled against `threshold` (default 0.5). A score outside the range counts as invalid
 * output (one repair attempt, then failed). The prompt is bounded (`JUDGE_PROMPT_BOUNDS`): what it
 * left out is said in the reason and in `details.promptCut`.
 */
export function createRubricScorer(judge: Judge, defaultModel: string): Scorer<RubricOptions> {
  return {
    name: 'rubric',
    kind: 'llm',
    description: 'Does the run meet the criteria, on a scale (LLM judge)?',
    parseOptions: options =>
      parseScorerOptions(optionsSchema as unknown as z.ZodObject, options) as RubricOptions,
    async score({ trace, testCase, options }) {
      const { min, max } = options;
      const prompt = rubricPrompt({
        criteria: options.criteria,
        min,
        max,
        userRequest: testCase?.input ?? trace.conversation.userInput ?? '',
        calls: trace.toolSequence,
        agentResponse: trace.conversation.finalOutput ?? '',
      });
      const answer = await judge.ask({
        model: options.model ?? defaultModel,
        system: RUBRIC_SYSTEM,
        user: prompt.user,
        schemaName: 'rubric',
        jsonSchema: RUBRIC_JSON_SCHEMA,
        parse: value => {
          const out = rubricOutput.parse(value);
          if (out.score < min || out.score > max)
            throw new Error(`score ${out.score} is outside the range ${min} to ${max}`);
          return out;
        },
      });
      const normalized = round2((answer.output.score - min) / (max - min));
      const promptCut = prompt.cuts.summary();
      return scored(
        normalized,
        options.threshold ?? 0.5,
        `${answer.output.explanation}${prompt.cuts.sentence()}`,
        {
          rawScore: answer.output.score,
          range: [min, max],
          usage: usageDetails(answer),
          ...(promptCut && { promptCut }),
        },
      );
    },
  };
}
