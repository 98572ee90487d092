import { z } from 'zod';
import { isTeam } from '../../normalize/attribute-agents.js';
import type { ToolCall } from '../../normalize/tool-call.js';
import type { Scorer } from '../scorer.js';
import { baseOptionsSchema, parseScorerOptions } from '../scorer-options.js';
import { round2, skipped } from '../score-result.js';
import { summarizeError } from '../summarize-error.js';

const optionsSchema = baseOptionsSchema.extend({
  maxErrorRate: z.number().min(0).max(1).default(0),
  errorText: z.boolean().default(true),
});

/** Options of {@link toolErrors}. */
export type ToolErrorsOptions = z.infer<typeof optionsSchema>;

/** A failed or refused call as `tool_errors` lists it (`failedCalls`, `refusedCalls`). */
export interface FailedCallDetail {
  name: string;
  callId: string | null;
  agent: string | null;
  /** The error text; `null` with `errorText: false` (`results.storeContent` off). */
  error: string | null;
}

/**
 * Reference-free: the share of the trace's tool calls that succeeded, counting a call the framework
 * refused as failed (the model asked for something the framework would not run: arguments its
 * schema rejects, a tool it does not have, a call the app denied when asked to approve it). A
 * refused call is listed apart from the calls that ran and failed. A call is judged when a tool span ran it, its result
 * (or failure) was fed back to the model, or the framework refused it; a request nothing answered
 * is not judged. Passes when the failed and refused calls are at most `maxErrorRate` of the judged
 * ones (default 0: any failed or refused call fails the trace). Details list each failed call and
 * each refused call apart, with its name, call id, agent and error text (the text left out with
 * `errorText: false`, which the tool-health default sets from `results.storeContent`); the reason
 * summarizes each error text ({@link summarizeError}). No judged call: skipped.
 */
export const toolErrors: Scorer<ToolErrorsOptions> = {
  name: 'tool_errors',
  kind: 'deterministic',
  // 2: refused calls count as failed (a trace whose only call was refused fails, not skipped).
  revision: 2,
  description: 'Did every tool call succeed, none failed or refused? (no expectation needed)',
  parseOptions: options => parseScorerOptions(optionsSchema, options),
  score({ trace, options }) {
    const ran = trace.toolSequence.filter(executed);
    const failed = ran.filter(c => c.outcome === 'error');
    const refused = trace.toolSequence.filter(c => c.outcome === 'refused');
    const judged = ran.length + refused.length;
    const team = isTeam(trace);
    const detail = (c: ToolCall): FailedCallDetail => ({
      name: c.name,
      callId: c.callId ?? null,
      agent: team ? (c.agent ?? null) : null,
      error: options.errorText ? (c.error ?? 'error') : null,
    });
    const describe = (c: ToolCall): string => {
      const who = `${c.name}${team && c.agent ? ` (by ${c.agent})` : ''}${c.outcome === 'refused' ? ' refused' : ''}`;
      return options.errorText && c.error ? `${who}: ${summarizeError(c.error)}` : who;
    };
    if (judged === 0)
      return skipped(
        trace.toolSequence.length === 0
          ? 'no tool calls in this trace'
          : `no tool call ran in this trace (${trace.toolSequence.length} requested, none executed, answered or refused)`,
      );
    const bad = trace.toolSequence.filter(c => c.outcome !== 'ok');
    const errorRate = bad.length / judged;
    const score = round2(1 - errorRate);
    const refusedNote = refused.length
      ? ` (${refused.length} refused by the framework, not run)`
      : '';
    const reason =
      bad.length === 0
        ? `all ${judged} tool call(s) that ran succeeded`
        : `${bad.length} of ${judged} tool call(s) failed${refusedNote}: ${bad.map(describe).join('; ')}`;
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
        judged,
        executed: ran.length,
        errorRate: round2(errorRate),
        maxErrorRate: options.maxErrorRate,
        failedCalls: failed.map(detail),
        refusedCalls: refused.map(detail),
      },
    };
  },
};

/** A call that ran: a tool span, or a result (or failure) fed back to the model; never refused. */
export function executed(call: ToolCall): boolean {
  if (call.outcome === 'refused') return false;
  return call.source === 'executed' || call.result !== undefined || call.outcome === 'error';
}
