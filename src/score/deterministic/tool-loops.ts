import { z } from 'zod';
import { isTeam } from '../../normalize/attribute-agents.js';
import {
  callsPerTool,
  DEFAULT_MIN_REPEATS,
  findRepeatedCalls,
} from '../../normalize/find-repeated-calls.js';
import type { Scorer } from '../scorer.js';
import { baseOptionsSchema, parseScorerOptions } from '../scorer-options.js';
import { scored, skipped } from '../score-result.js';

const optionsSchema = baseOptionsSchema.extend({
  minRepeats: z.number().int().min(2).default(DEFAULT_MIN_REPEATS),
  maxCallsPerTool: z.number().int().min(1).optional(),
  showArguments: z.boolean().default(true),
});

/** Options of {@link toolLoops}. */
export type ToolLoopsOptions = z.infer<typeof optionsSchema>;

/**
 * Reference-free: an agent stuck in a loop. Fails when the same tool is called with the same
 * arguments (canonical JSON, key order ignored) `minRepeats` times or more (default 3) by the same
 * agent, or, with `maxCallsPerTool`, when an agent calls one tool more often than that whatever
 * the arguments. Score 1 or 0. Details: each repeated call with its count, call ids and (unless
 * `showArguments: false`, which the tool-health default sets from `results.storeContent`) its
 * arguments; each tool over the limit with its count. No tool calls: skipped.
 */
export const toolLoops: Scorer<ToolLoopsOptions> = {
  name: 'tool_loops',
  kind: 'deterministic',
  description: 'Did the agent repeat the same tool call over and over? (no expectation needed)',
  parseOptions: options => parseScorerOptions(optionsSchema, options),
  score({ trace, options }) {
    const calls = trace.toolSequence;
    if (calls.length === 0) return skipped('no tool calls in this trace');
    const repeated = findRepeatedCalls(calls, { minRepeats: options.minRepeats });
    const max = options.maxCallsPerTool;
    const overLimit = max === undefined ? [] : callsPerTool(calls).filter(t => t.count > max);
    const team = isTeam(trace);
    const who = (agent: string | undefined): string => (team && agent ? ` by ${agent}` : '');
    const parts = [
      ...repeated.map(
        r =>
          `${r.name} was called ${r.count} times${who(r.agent)} with the same arguments${options.showArguments ? ` (${preview(r.arguments)})` : ''}`,
      ),
      ...overLimit.map(
        t => `${t.name} was called ${t.count} times${who(t.agent)}, more than ${max}`,
      ),
    ];
    const ok = parts.length === 0;
    return scored(
      ok ? 1 : 0,
      options.threshold ?? 1,
      ok
        ? `no call repeated ${options.minRepeats} times with the same arguments${max === undefined ? '' : `, no tool called more than ${max} times`} (${calls.length} call(s))`
        : parts.join('; '),
      {
        minRepeats: options.minRepeats,
        ...(max !== undefined && { maxCallsPerTool: max }),
        repeatedCalls: repeated.map(r => ({
          name: r.name,
          agent: team ? (r.agent ?? null) : null,
          count: r.count,
          callIds: r.callIds,
          ...(options.showArguments && { arguments: r.arguments }),
        })),
        overLimit: overLimit.map(t => ({
          name: t.name,
          agent: team ? (t.agent ?? null) : null,
          count: t.count,
        })),
      },
    );
  },
};

/** Arguments as short JSON for a reason. */
function preview(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 120 ? `${text.slice(0, 120)}…` : text;
}
