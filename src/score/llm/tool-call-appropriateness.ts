import { z } from 'zod';
import { extractAvailableTools } from '../../normalize/extract-available-tools.js';
import type { Scorer } from '../scorer.js';
import { baseOptionsSchema, parseScorerOptions } from '../scorer-options.js';
import { round2, scored } from '../score-result.js';
import { usageDetails, type Judge } from './judge.js';
import {
  APPROPRIATENESS_JSON_SCHEMA,
  APPROPRIATENESS_SYSTEM,
  appropriatenessOutput,
  appropriatenessPrompt,
} from './tool-call-appropriateness.prompt.js';

const optionsSchema = baseOptionsSchema.extend({
  /** The judge model; default: the judge's configured model. */
  model: z.string().min(1).optional(),
  /** Tools to show the judge when neither the trace nor the test case lists them. */
  availableTools: z
    .array(z.object({ name: z.string().min(1), description: z.string().optional() }).strict())
    .optional(),
});

/** Options of the `tool_call_appropriateness` scorer. */
export type ToolCallAppropriatenessOptions = z.infer<typeof optionsSchema>;

/**
 * The seed's LLM-based tool call accuracy scorer. The judge sees the user request (test case
 * `input`, else the trace's first user message), the tools offered (from the trace, else the test
 * case's `availableTools`, else the scorer's), every call with arguments and results, and the final
 * answer; it returns a verdict per call, the missing tools, and a reason. Score: appropriate calls /
 * calls judged, rounded to 2 places; with no calls, 1 when asking for clarification was right and
 * no tool is missing, else 0. An answer without exactly one evaluation per call shown is invalid
 * (one repair attempt, then failed). The prompt is bounded (`JUDGE_PROMPT_BOUNDS`): what it left
 * out is said in the reason and in `details.promptCut`, and the score is over the calls shown.
 * Model and token usage go in `details.usage`.
 */
export function createToolCallAppropriatenessScorer(
  judge: Judge,
  defaultModel: string,
): Scorer<ToolCallAppropriatenessOptions> {
  return {
    name: 'tool_call_appropriateness',
    kind: 'llm',
    description: 'Were the tools the agent called appropriate for the request (LLM judge)?',
    parseOptions: options => parseScorerOptions(optionsSchema, options),
    async score({ trace, testCase, options }) {
      const fromTrace = extractAvailableTools(trace.spans);
      const availableTools = fromTrace.length
        ? fromTrace
        : (testCase?.availableTools ?? options.availableTools ?? []);
      const calls = trace.toolSequence.map(c => ({
        name: c.name,
        arguments: c.arguments,
        result: c.result,
        status: c.status,
      }));
      const prompt = appropriatenessPrompt({
        userRequest: testCase?.input ?? trace.conversation.userInput ?? '',
        availableTools,
        calls,
        agentResponse: trace.conversation.finalOutput ?? '',
      });
      const answer = await judge.ask({
        model: options.model ?? defaultModel,
        system: APPROPRIATENESS_SYSTEM,
        user: prompt.user,
        schemaName: 'tool_call_appropriateness',
        jsonSchema: APPROPRIATENESS_JSON_SCHEMA,
        parse: value => {
          const out = appropriatenessOutput.parse(value);
          // The score's denominator: one verdict per call shown, no more and no fewer.
          if (out.evaluations.length !== prompt.callsShown)
            throw new Error(
              `${out.evaluations.length} evaluations for ${prompt.callsShown} tool calls: give one per call, in order`,
            );
          return out;
        },
      });
      const { evaluations, missingTools, clarificationWasAppropriate, reason } = answer.output;
      const score = evaluations.length
        ? round2(evaluations.filter(e => e.wasAppropriate).length / evaluations.length)
        : clarificationWasAppropriate && missingTools.length === 0
          ? 1
          : 0;
      const promptCut = prompt.cuts.summary();
      return scored(score, options.threshold ?? 1, `${reason}${prompt.cuts.sentence()}`, {
        evaluations,
        missingTools,
        clarificationWasAppropriate,
        availableTools: availableTools.map(t => t.name),
        usage: usageDetails(answer),
        ...(promptCut && { promptCut }),
      });
    },
  };
}
