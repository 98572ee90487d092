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
  const outcomes = run.results.flatMap(r => r.outcomes);
  const checked =
    run.argumentsChecked === true || outcomes.some(o => o.scorer === 'tool_arguments');
  // The same object tool_arguments read in this pass (assessed once per trace).
  const assessment = checked ? assessToolCalls(trace, { assertFormats }).calls : undefined;
  // The groups tool_loops found, with its own minRepeats (found once per calls and minRepeats).
  const repeated = new Set<ToolCall>();
  for (const o of outcomes) {
    if (o.scorer !== 'tool_loops' || o.result.status !== 'scored') continue;
    const { repeatedCalls, minRepeats } = o.result.details;
    if (!Array.isArray(repeatedCalls) || repeatedCalls.length === 0) continue;
    const min = typeof minRepeats === 'number' ? minRepeats : undefined;
    for (const group of findRepeatedCalls(trace.toolSequence, { ...(min && { minRepeats: min }) }))
      for (const call of group.calls) repeated.add(call);
  }
  return { trace, assessment, repeated };
}
