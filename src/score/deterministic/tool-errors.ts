import { z } from 'zod';
import { isTeam } from '../../normalize/attribute-agents.js';
import type { ToolCall } from '../../normalize/tool-call.js';
import type { Scorer } from '../scorer.js';
import { baseOptionsSchema, parseScorerOptions } from '../scorer-options.js';
import { round2, skipped } from '../score-result.js';

const optionsSchema = baseOptionsSchema.extend({
  maxErrorRate: z.number().min(0).max(1).default(0),
  errorText: z.boolean().default(true),
});

/** Options of {@link toolErrors}. */
export type ToolErrorsOptions = z.infer<typeof optionsSchema>;

/** A failed or refused call as `tool_errors` lists it. */
export interface FailedCallDetail {
  name: string;
  callId: string | null;
  agent: string | null;
  /** The error text; `null` with `errorText: false` (`results.storeContent` off). */
  error: string | null;
}

/**
 * Reference-free: the share of the trace's executed tool calls that succeeded. A call counts as
 * executed when a tool span ran it or its result (or failure) was fed back to the model; a call
 * the framework refused (invalid input, no such tool) did not run and is listed apart, as is a
 * request nothing answered. Passes when the error rate is at most `maxErrorRate` (default 0: any
 * failed call fails the trace). Details list each failed and refused call with its name, call id,
 * agent and error text (the text left out with `errorText: false`, which the tool-health default
 * sets from `results.storeContent`). No executed call: skipped.
 */
export const toolErrors: Scorer<ToolErrorsOptions> = {
  name: 'tool_errors',
  kind: 'deterministic',
  description: 'Did every tool call that ran succeed? (no expectation needed)',
  parseOptions: options => parseScorerOptions(optionsSchema, options),
  score({ trace, options }) {
    const ran = trace.toolSequence.filter(executed);
    const failed = ran.filter(c => c.outcome === 'error');
    const refused = trace.toolSequence.filter(c => c.outcome === 'refused');
    const team = isTeam(trace);
    const detail = (c: ToolCall): FailedCallDetail => ({
      name: c.name,
      callId: c.callId ?? null,
      agent: team ? (c.agent ?? null) : null,
      error: options.errorText ? (c.error ?? 'error') : null,
    });
    const describe = (c: ToolCall): string => {
      const who = team && c.agent ? ` (by ${c.agent})` : '';
      return options.errorText && c.error
        ? `${c.name}${who}: ${oneLine(c.error)}`
        : `${c.name}${who}`;
    };
    const refusedText = refused.length
      ? `; ${refused.length} refused by the framework (not run): ${refused.map(c => describe(c)).join('; ')}`
      : '';
    if (ran.length === 0)
      return skipped(
        trace.toolSequence.length === 0
          ? 'no tool calls in this trace'
          : `no tool call ran in this trace (${trace.toolSequence.length} requested, none executed or answered)${refusedText}`,
      );
    const errorRate = failed.length / ran.length;
    const score = round2(1 - errorRate);
    const reason =
      failed.length === 0
        ? `all ${ran.length} tool call(s) that ran succeeded${refusedText}`
        : `${failed.length} of ${ran.length} tool call(s) failed: ${failed.map(c => describe(c)).join('; ')}${refusedText}`;
    // The label follows the error rate (not the rounded score) unless a threshold is given.
    const pass =
      options.threshold !== undefined
        ? score >= options.threshold
        : errorRate <= options.maxErrorRate;
    return {
      status: 'scored',
      score,
      label: pass ? 'pass' : 'fail',
      reason,
      details: {
        executed: ran.length,
        errorRate: round2(errorRate),
        maxErrorRate: options.maxErrorRate,
        failedCalls: failed.map(detail),
        refusedCalls: refused.map(detail),
      },
    };
  },
};

/** A call that ran: a tool span, or a result (or failure) fed back to the model. */
export function executed(call: ToolCall): boolean {
  if (call.outcome === 'refused') return false;
  return call.source === 'executed' || call.result !== undefined || call.outcome === 'error';
}

/** An error text on one line, at most 200 characters. */
function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 200 ? `${flat.slice(0, 200)}…` : flat;
}
