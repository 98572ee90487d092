import type { ToolCallOutcome } from '../normalize/tool-call.js';
import { runCalls } from '../score/run-calls.js';
import { toolCallFacts } from '../score/tool-call-facts.js';
import type { TraceRun } from '../score/trace-run.js';
import type { RunRecord } from './stored-result.js';

/** One tool call as failure signatures count it (see `FailureSignatureMinutes`). */
export interface CallOutcome {
  service: string;
  version: string;
  tool: string;
  outcome: ToolCallOutcome;
  /** The error text of a failed or refused call, as normalization read it. */
  error?: string | undefined;
  /** The trace the call was made in (a session's pass: its turn's trace); unset when unknown. */
  traceId?: string | undefined;
}

/**
 * The calls of a pass, one each, exactly those the per-tool counters count (`toolCallFacts`: none
 * for a trace not scored, or for the judge pass), with the error texts and trace ids of the failed
 * and refused ones. A pass with no failure allocates nothing: its facts are its outcomes. Pure.
 */
export function callOutcomes(run: TraceRun): readonly CallOutcome[] {
  const facts = toolCallFacts(run);
  if (!facts.some(f => f.outcome !== 'ok')) return facts;
  // `toolCallFacts` has one fact per call of this trace, in its order (if not, the failures
  // count without their texts rather than not at all).
  const calls = runCalls(run)?.trace.toolSequence ?? [];
  if (calls.length !== facts.length) return facts;
  return facts.map((fact, i) => {
    const call = calls[i]!;
    if (fact.outcome === 'ok') return fact;
    return {
      service: fact.service,
      version: fact.version,
      tool: fact.tool,
      outcome: fact.outcome,
      error: call.error,
      traceId:
        (call.turn !== undefined ? run.session?.traceIds[call.turn] : undefined) ?? run.traceId,
    };
  });
}

/**
 * The calls a stored run record counted, read back to take them back when a rescore replaces it
 * (see `replacedIncrements`). Pure.
 */
export function storedCallOutcomes(
  record: Pick<RunRecord, 'serviceName' | 'serviceVersion' | 'toolCalls'>,
): CallOutcome[] {
  return record.toolCalls.map(call => ({
    service: record.serviceName,
    version: record.serviceVersion ?? '',
    tool: call.name,
    outcome: call.outcome ?? (call.status === 'error' ? 'error' : 'ok'),
    error: call.error ?? undefined,
  }));
}
