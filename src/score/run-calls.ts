import { assessToolCalls, type ToolCallAssessment } from '../normalize/assess-tool-calls.js';
import { findRepeatedCalls } from '../normalize/find-repeated-calls.js';
import type { NormalizedTrace } from '../normalize/normalize-trace.js';
import type { ToolCall } from '../normalize/tool-call.js';
import type { TraceRun } from './trace-run.js';

/**
 * What one pass found of each call of its trace, worked out once and read by every reader of the
 * run (the results stores, per-tool counters and metrics): each call's assessment where
 * `tool_arguments` scores the trace, and the calls `tool_loops` found repeated.
 */
export interface RunCalls {
  /** The trace the calls are of: the first result's that ran a scorer. */
  trace: NormalizedTrace;
  /**
   * Each call's assessment (outcome, offered, argument problems or why unchecked), in
   * `toolSequence` order, where `tool_arguments` scores the trace in this pass or (a judge pass)
   * the one before it; `undefined` elsewhere.
   */
  assessment: readonly ToolCallAssessment[] | undefined;
  /** The calls `tool_loops` found repeated in this pass, with its own `minRepeats`. */
  repeated: ReadonlySet<ToolCall>;
}

const byRun = new WeakMap<TraceRun, RunCalls | null>();

/**
 * Works out the run's {@link RunCalls} once, as the scoring path that made the run checked them
 * (`assertFormats`: the option its `tool_arguments` ran with, so a judge pass's record says what
 * the pass before it found). Called by `scoreTrace`; pure apart from the memo.
 */
export function recordRunCalls(run: TraceRun, options: { assertFormats?: boolean } = {}): void {
  byRun.set(run, computeRunCalls(run, options.assertFormats === true));
}

/**
 * The run's {@link RunCalls}: as `scoreTrace` recorded them, else worked out now (a run made
 * elsewhere, formats not asserted); `undefined` for a run with no call.
 */
export function runCalls(run: TraceRun): RunCalls | undefined {
  let calls = byRun.get(run);
  if (calls === undefined) byRun.set(run, (calls = computeRunCalls(run, false)));
  return calls ?? undefined;
}

function computeRunCalls(run: TraceRun, assertFormats: boolean): RunCalls | null {
  const trace = (run.results.find(r => r.outcomes.length > 0) ?? run.results[0])?.trace;
  if (!trace || trace.toolSequence.length === 0) return null;
  let checked = run.argumentsChecked === true;
  // The groups tool_loops found, with its own minRepeats (found once per calls and minRepeats);
  // a run without any shares one empty set. The outcomes are read where they are, not gathered
  // into a list of their own; index loops, as a for-of left an iterator result per item.
  let repeated: Set<ToolCall> | undefined;
  for (let r = 0; r < run.results.length; r++) {
    const outcomes = run.results[r]!.outcomes;
    for (let i = 0; i < outcomes.length; i++) {
      const o = outcomes[i]!;
      if (o.scorer === 'tool_arguments') checked = true;
      if (o.scorer !== 'tool_loops' || o.result.status !== 'scored') continue;
      const { repeatedCalls, minRepeats } = o.result.details;
      if (!Array.isArray(repeatedCalls) || repeatedCalls.length === 0) continue;
      const min = typeof minRepeats === 'number' ? minRepeats : undefined;
      repeated ??= new Set();
      for (const group of findRepeatedCalls(trace.toolSequence, {
        ...(min && { minRepeats: min }),
      }))
        for (const call of group.calls) repeated.add(call);
    }
  }
  // The same object tool_arguments read in this pass (assessed once per trace).
  const assessment = checked ? assessToolCalls(trace, { assertFormats }).calls : undefined;
  return { trace, assessment, repeated: repeated ?? NO_REPEATS };
}

const NO_REPEATS: ReadonlySet<ToolCall> = new Set();
