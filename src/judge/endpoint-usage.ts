import type { JudgeUsage } from '../score/llm/judge.js';

/** What one judge call can be counted for at most, and why (see `JUDGE_USAGE_CEILING`). */
export interface UsageCeilings {
  /** Input tokens the prompt sent can be, and the words saying so. */
  input: { ceiling: number; why: string };
  /** Output tokens the call asked for at most (`judge.maxOutputTokens`). */
  output: { ceiling: number; why: string };
}

/**
 * The tokens one call is counted for, read from the endpoint's `usage` block (untrusted), and
 * why they are not the endpoint's own counts, when they are not (`usageProblem`):
 * - a count past its ceiling, `Infinity` (a JSON `1e309`) or `NaN` is counted at the ceiling and
 *   named: an absurd count is no reason to count nothing;
 * - a count that is no number from 0 up (negative, a string) is read as 0 and named: it would
 *   reach the cost as `NaN` or a negative sum, and the metrics' counters;
 * - `total_tokens` is read when `prompt_tokens` or `completion_tokens` is absent (some
 *   OpenAI-compatible servers send only the total): what the total holds beyond the counts given
 *   is counted as output tokens up to the output ceiling, the rest as input tokens, and said.
 *   Output first: it is never dearer to count a token as input on the price lists of the usual
 *   providers, and a call's output is bounded by the ceiling it asked for.
 * A server that sends no `usage` at all is counted 0, unsaid.
 */
export function endpointUsage(
  usage: unknown,
  ceilings: UsageCeilings,
): { usage: JudgeUsage; usageProblem?: string } {
  const unread: string[] = [];
  const implausible: string[] = [];
  const read = usage as Record<string, unknown> | null | undefined;
  let inputTokens = tokenCount(read, 'prompt_tokens', unread, implausible, ceilings.input);
  let outputTokens = tokenCount(read, 'completion_tokens', unread, implausible, ceilings.output);
  const noInput = read?.prompt_tokens === undefined || read.prompt_tokens === null;
  const noOutput = read?.completion_tokens === undefined || read.completion_tokens === null;
  if ((noInput || noOutput) && read?.total_tokens !== undefined && read.total_tokens !== null) {
    const total = tokenCount(read, 'total_tokens', unread, implausible, {
      ceiling: ceilings.input.ceiling + ceilings.output.ceiling,
      why: `${ceilings.input.why}, plus ${ceilings.output.why}`,
    });
    let rest = Math.max(0, total - inputTokens - outputTokens);
    const asOutput = noOutput ? Math.min(rest, ceilings.output.ceiling - outputTokens) : 0;
    rest -= asOutput;
    const asInput = noInput ? Math.min(rest, ceilings.input.ceiling - inputTokens) : 0;
    outputTokens += asOutput;
    inputTokens += asInput;
    if (asOutput + asInput > 0)
      implausible.push(
        `usage.total_tokens was ${total} without ${[noInput && 'usage.prompt_tokens', noOutput && 'usage.completion_tokens'].filter(Boolean).join(' or ')}: ${asOutput} of it counted as output and ${asInput} as input tokens (output first, up to ${ceilings.output.why})`,
      );
  }
  const problems = [
    ...(unread.length
      ? [
          `${unread.join(', ')}, not ${unread.length === 1 ? 'a token count' : 'token counts'}: read as 0`,
        ]
      : []),
    ...implausible,
  ];
  return {
    usage: { inputTokens, outputTokens },
    ...(problems.length && { usageProblem: `the endpoint's ${problems.join('; ')}` }),
  };
}

/**
 * One token count of the endpoint's `usage`: a finite number from 0 up to `limit.ceiling` as it
 * is; past the ceiling, `Infinity` or `NaN`, the ceiling (said in `implausible`); anything else
 * (negative, a string) 0 (named in `unread`); absent, 0.
 */
function tokenCount(
  usage: Record<string, unknown> | null | undefined,
  field: string,
  unread: string[],
  implausible: string[],
  limit: { ceiling: number; why: string },
): number {
  const value = usage?.[field];
  if (value === undefined || value === null) return 0;
  if (typeof value === 'number' && (value > limit.ceiling || Number.isNaN(value))) {
    implausible.push(
      Number.isNaN(value)
        ? `usage.${field} was NaN, not a count: counted as ${limit.ceiling}, the most one call can use (${limit.why})`
        : `usage.${field} was ${value}, more than the ${limit.ceiling} tokens one call can use (${limit.why}): counted as ${limit.ceiling}`,
    );
    return limit.ceiling;
  }
  if (typeof value === 'number' && value >= 0) return value;
  unread.push(
    `usage.${field} was ${typeof value === 'number' ? String(value) : JSON.stringify(value)}`,
  );
  return 0;
}
