import type { TraceProgress } from '../../queue/trace-readiness.js';
import type { RunRecord } from '../../results/stored-result.js';

/**
 * The run record the API shows for a trace still buffered (`state: "pending"`), with what it waits
 * for in `reason`. Its spans are not read here, so what they tell (test case id, service, calls) is
 * empty until the trace is scored: `serviceName` is `''`, "not known yet". Pure.
 */
export function pendingRunRecord(
  traceId: string,
  pending: TraceProgress & { scoring?: boolean },
  contentKept: boolean,
  nowUnixMs: number,
): RunRecord {
  return {
    traceId,
    state: 'pending',
    reason: pending.scoring
      ? 'received; being scored'
      : pending.rootEnded
        ? 'received; its root span ended: waiting for late spans to settle'
        : 'received; waiting for its root span to end',
    testCaseId: null,
    testCaseIdAttribute: null,
    serviceName: '',
    serviceVersion: null,
    deploymentEnvironment: null,
    diagnostics: [],
    matched: [],
    awaitingJudge: [],
    receivedAtUnixMs: pending.firstSeenMs || null,
    updatedAtUnixMs: pending.lastSeenMs || nowUnixMs,
    export: null,
    toolCalls: [],
    contentKept,
    results: [],
  };
}
