import type { RunRecord } from '../../results/stored-result.js';

/**
 * The inspect view of a trace from its run record, once its spans are gone: the conventions are
 * counted from the calls kept (distinct spans per extractor and source), and what only the spans
 * tell (the tools offered, the model calls, whether the id is on the root span) is `null`. Pure.
 */
export function inspectionOfRecord(record: RunRecord): Record<string, unknown> {
  const conventions = new Map<string, { executed: Set<string>; requested: Set<string> }>();
  for (const call of record.toolCalls) {
    let c = conventions.get(call.convention);
    if (!c) conventions.set(call.convention, (c = { executed: new Set(), requested: new Set() }));
    c[call.source].add(call.spanId);
  }
  return {
    source: 'run record',
    state: record.state,
    traceId: record.traceId,
    spans: null,
    root: null,
    testCaseId: record.testCaseId,
    testCaseIdAttribute: record.testCaseIdAttribute,
    testCaseIdOnRoot: null,
    modelCalls: null,
    conventions: [...conventions].map(([id, c]) => ({
      id,
      executedSpans: c.executed.size,
      requestedSpans: c.requested.size,
    })),
    toolCalls: record.toolCalls,
    availableTools: null,
    diagnostics: record.diagnostics,
  };
}
