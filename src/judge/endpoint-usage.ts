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
 * - a plain decimal integer in a string (`"1000"`: digits only, 16 at most) is read as that number,
 *   then as a number is (past the ceiling, at the ceiling and named);
 * - any other count that is no number from 0 up (negative, another string, a boolean, an object)
 *   is counted at the ceiling and named, as `NaN` is: the call was made and used tokens the
 *   endpoint did not say, and read as 0 a server sending `prompt_tokens: -5000` with every answer
 *   made every call free, the daily budget never spent. So a count is never below what it says,
 *   never below 0, and never lowers the day's spend.
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
  const implausible: string[] = [];
  const read = usage as Record<string, unknown> | null | undefined;
  let inputTokens = tokenCount(read, 'prompt_tokens', implausible, ceilings.input);
  let outputTokens = tokenCount(read, 'completion_tokens', implausible, ceilings.output);
  const noInput = read?.prompt_tokens === undefined || read.prompt_tokens === null;
  const noOutput = read?.completion_tokens === undefined || read.completion_tokens === null;
  if ((noInput || noOutput) && read?.total_tokens !== undefined && read.total_tokens !== null) {
    const total = tokenCount(read, 'total_tokens', implausible, {
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
  const problems = implausible;
  return {
    usage: { inputTokens, outputTokens },
    ...(problems.length && { usageProblem: `the endpoint's ${problems.join('; ')}` }),
  };
}

/** A plain decimal integer, as a string may hold a token count (16 digits: past any ceiling). */
const DECIMAL_COUNT = /^[0-9]{1,16}$/;

/**
 * One token count of the endpoint's `usage`: a finite number from 0 up to `limit.ceiling` (or a
 * string of one, see {@link DECIMAL_COUNT}) as it is; past the ceiling, and anything else that is
 * no such count (`Infinity`, `NaN`, negative, another string or type), the ceiling, said in
 * `implausible`; absent, 0.
 */
function tokenCount(
  usage: Record<string, unknown> | null | undefined,
  field: string,
  implausible: string[],
  limit: { ceiling: number; why: string },
): number {
  const given = usage?.[field];
  if (given === undefined || given === null) return 0;
  const value = typeof given === 'string' && DECIMAL_COUNT.test(given) ? Number(given) : given;
  if (typeof value === 'number' && value >= 0 && value <= limit.ceiling) return value;
  implausible.push(
    typeof value === 'number' && value > limit.ceiling
      ? `usage.${field} was ${value}, more than the ${limit.ceiling} tokens one call can use (${limit.why}): counted as ${limit.ceiling}`
      : `usage.${field} was ${shown(value)}, not a count: counted as ${limit.ceiling}, the most one call can use (${limit.why})`,
  );
  return limit.ceiling;
}

/** A value of `usage` as its problem names it: a number as JavaScript writes it, else its JSON. */
function shown(value: unknown): string {
  if (typeof value === 'number') return String(value);
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
