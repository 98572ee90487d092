import type { SchemaSource } from '../normalize/schema-source.js';
import type { ToolCallOutcome } from '../normalize/tool-call.js';
import { runCalls } from './run-calls.js';
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
  /**
   * Where the schema it was checked against came from, when checked (absent: the trace's own, as
   * in facts read back from records written before schemas were learned).
   */
  schemaSource?: SchemaSource['kind'];
  /** A tool the model call was never offered (`tool_arguments` ran). */
  unknown: boolean;
  /** One of a group of identical calls `tool_loops` found. */
  repeated: boolean;
}

/**
 * The tool calls of one pass of the per-trace loop, one fact each (none for a trace not scored, or
 * for the judge pass, which scores calls counted already): outcome and duration from
 * normalization; argument checks and repeats as the pass found them ({@link runCalls}). Pure.
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
  const calls = runCalls(run);
  if (!calls) return [];
  const { trace, assessment, repeated } = calls;
  const fallbackAgent = trace.agentName ?? '';
  // A loop into an array sized once, each fact one literal of one shape (its schema's source
  // assigned after where there is one): a spread of a conditional object into the literal built
  // every fact key by key.
  const out = new Array<ToolCallFact>(trace.toolSequence.length);
  for (let i = 0; i < out.length; i++) {
    const call = trace.toolSequence[i]!;
    const a = assessment?.[i];
    const checked = a !== undefined && a.argumentProblems !== null;
    const fact: ToolCallFact = {
      service: trace.serviceName,
      version: trace.serviceVersion,
      agent: call.agent ?? fallbackAgent,
      tool: call.name,
      outcome: call.outcome,
      durationMs: call.durationMs,
      checked,
      invalid: checked && a.argumentProblems!.length > 0,
      unknown: a !== undefined && a.offered === false,
      repeated: repeated.has(call),
    };
    if (a?.argumentProblems && a.schemaSource) fact.schemaSource = a.schemaSource.kind;
    out[i] = fact;
  }
  return out;
}
