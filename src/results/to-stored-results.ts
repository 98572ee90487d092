import { expectedToolsOf } from '../score/expected-tools.js';
import type { TraceRun } from '../score/trace-run.js';
import type { RunRecord, StoredResult } from './stored-result.js';

/**
 * The results of one pass of the per-trace loop, as stored (without ids: the store assigns them).
 * Runs without outcomes (not scored, or a deterministic pass that deferred everything) give none.
 */
export function toStoredResults(run: TraceRun): Array<Omit<StoredResult, 'id'>> {
  const out: Array<Omit<StoredResult, 'id'>> = [];
  for (const r of run.results) {
    if (r.outcomes.length === 0) continue;
    const timeUnixMs = Number(r.endUnixNano / 1_000_000n);
    const expected = expectedToolsOf(r.testCase) ?? null;
    const toolSequence = r.trace.toolSequence.map(c => c.name);
    for (const o of r.outcomes) {
      const result = o.result;
      const usage =
        result.status === 'scored'
          ? (result.details.usage as { costUsd?: unknown } | undefined)
          : undefined;
      out.push({
        timeUnixMs,
        traceId: run.traceId,
        targetKind: r.kind,
        suite: r.suite,
        testCaseId: r.testCaseId,
        scorer: o.scorer,
        scorerKind: o.kind,
        scorerVersion: o.version ?? '',
        phase: r.phase,
        status: result.status,
        score: result.status === 'scored' ? result.score : null,
        label: result.status === 'scored' ? result.label : null,
        reason: result.status === 'failed' ? result.error : result.reason,
        expectedTools: expected,
        toolSequence,
        toolsUsed: r.trace.toolsUsed,
        serviceName: r.trace.serviceName,
        agentName: r.trace.agentName ?? null,
        judgeCostUsd: typeof usage?.costUsd === 'number' ? usage.costUsd : null,
      });
    }
  }
  return out;
}

/**
 * The run-record fields one pass sets (the store merges them into what it has): its state and
 * reason, what it matched, and which LLM scorers still wait for the judge pass. A judge pass
 * clears what it ran from `awaitingJudge`; a skipped result for an exhausted budget shows in the
 * reason.
 */
export function runRecordPatch(
  run: TraceRun,
  nowUnixMs: number,
): Omit<RunRecord, 'results' | 'receivedAtUnixMs'> {
  const awaiting = run.results.flatMap(r => r.deferred);
  const budget = run.results.flatMap(r =>
    r.outcomes.filter(o => o.result.status === 'skipped' && /budget/i.test(o.result.reason)),
  );
  let reason = run.reason ?? null;
  if (run.state === 'scored' && budget.length > 0)
    reason = `${budget.length} LLM result(s) skipped: judge budget exhausted`;
  else if (run.state === 'scored' && awaiting.length > 0)
    reason = `waiting for the judge: ${[...new Set(awaiting)].join(', ')}`;
  return {
    traceId: run.traceId,
    state: run.state,
    reason,
    testCaseId: run.testCaseId ?? null,
    serviceName: run.serviceName,
    matched: run.results.map(r =>
      r.kind === 'rule' ? r.testCaseId : `${r.suite} / ${r.testCaseId}`,
    ),
    awaitingJudge: run.phase === 'llm' ? [] : [...new Set(awaiting)],
    updatedAtUnixMs: nowUnixMs,
  };
}
