import { assessToolCalls } from '../normalize/assess-tool-calls.js';
import { findRepeatedCalls } from '../normalize/find-repeated-calls.js';
import type { ToolCallOutcome } from '../normalize/tool-call.js';
import type { TraceRun } from './trace-run.js';

/** One tool call of a scored trace, as the per-tool counters and metrics count it. */
export interface ToolCallFact {
  service: string;
  version: string;
  /** The agent that made it: its enclosing agent span, else the trace's agent; `''` when none. */
  agent: string;
  /** The call's name, namespaces stripped (`tools_used` spelling). */
  tool: string;
  outcome: ToolCallOutcome;
  /** How long its tool span ran; `undefined` when no span ran it. */
  durationMs: number | undefined;
  /** Its arguments were checked against the schema offered (`tool_arguments` ran and could). */
  checked: boolean;
  /** Checked and invalid. */
  invalid: boolean;
  /** A tool the model call was never offered (`tool_arguments` ran). */
  unknown: boolean;
  /** One of a group of identical calls `tool_loops` found. */
  repeated: boolean;
}

/**
 * The tool calls of one pass of the per-trace loop, one fact each (none for a trace not scored, or
 * for the judge pass, which scores calls counted already): outcome and duration from
 * normalization; argument checks where `tool_arguments` scored the trace (its assessment, computed
 * once per trace, is read again); repeats where `tool_loops` found them (its details). Pure.
 */
export function toolCallFacts(run: TraceRun): readonly ToolCallFact[] {
  let facts = factsOf.get(run);
  if (!facts) factsOf.set(run, (facts = computeFacts(run)));
  return facts;
}

// The store and the metrics sink both count a run's calls: worked out once.
const factsOf = new WeakMap<TraceRun, readonly ToolCallFact[]>();

function computeFacts(run: TraceRun): ToolCallFact[] {
  if (run.phase === 'llm') return [];
  const result = run.results.find(r => r.outcomes.length > 0);
  if (!result) return [];
  const trace = result.trace;
  if (trace.toolSequence.length === 0) return [];
  const outcomes = run.results.flatMap(r => r.outcomes);
  const argumentsChecked = outcomes.some(
    o => o.scorer === 'tool_arguments' && o.result.status !== 'failed',
  );
  const assessment = argumentsChecked ? assessToolCalls(trace).calls : undefined;
  // The calls `tool_loops` found repeated, found again with its own `minRepeats` (rare: only a
  // trace with a finding pays for it).
  const repeated = new Set<unknown>();
  for (const o of outcomes) {
    if (o.scorer !== 'tool_loops' || o.result.status !== 'scored') continue;
    const { repeatedCalls, minRepeats } = o.result.details;
    if (!Array.isArray(repeatedCalls) || repeatedCalls.length === 0) continue;
    const min = typeof minRepeats === 'number' ? minRepeats : undefined;
    for (const group of findRepeatedCalls(trace.toolSequence, { ...(min && { minRepeats: min }) }))
      for (const call of group.calls) repeated.add(call);
  }
  const fallbackAgent = trace.agentName ?? '';
  return trace.toolSequence.map((call, i) => {
    const a = assessment?.[i];
    return {
      service: trace.serviceName,
      version: trace.serviceVersion,
      agent: call.agent ?? fallbackAgent,
      tool: call.name,
      outcome: call.outcome,
      durationMs: call.durationMs,
      checked: a !== undefined && a.argumentProblems !== null,
      invalid: a !== undefined && a.argumentProblems !== null && a.argumentProblems.length > 0,
      unknown: a !== undefined && a.offered === false,
      repeated: repeated.has(call),
    };
  });
}
