import type { SessionContinues, SessionCutCode } from '../normalize/session-pass.js';
import type { NormalizedTrace } from '../normalize/normalize-trace.js';
import type { ToolCall } from '../normalize/tool-call.js';
import type { ScorerOutcome } from '../score/run-scorers.js';
import type { ScorerKind } from '../score/scorer.js';
import type { SuiteRun } from '../score/score-suite.js';
import type { Suite } from '../score/scoring-plan.js';

/** A tool call as written in reports: the start time as a decimal string of nanoseconds. */
export type ToolCallJson = Omit<ToolCall, 'startTimeUnixNano'> & { startTimeUnixNano: string };

/** One row of a report: one test case × scorer (× trace). Every output format writes these. */
export interface ResultRow {
  traceId: string | null;
  testCaseId: string;
  scorer: string;
  kind: ScorerKind | null;
  /** `missing`: no trace was found for the test case. */
  status: 'scored' | 'skipped' | 'failed' | 'missing';
  /** A number only when `status` is `scored`. */
  score: number | null;
  label: 'pass' | 'fail' | null;
  reason: string;
  toolsUsed: string[];
  toolSequence: ToolCallJson[];
  details: Record<string, unknown>;
  /**
   * A session's result (a session test case): the session id and its turns in order (`traceId`
   * is the last turn's; each call of `toolSequence` has its `turn`). Absent for one trace.
   */
  session?: ResultSession;
}

/** A session as a report row names it. */
export interface ResultSession {
  id: string;
  /** Which part of the session, when a later one (a continuation: see `SessionPass`). */
  part?: number;
  turns: Array<{ traceId: string; testCaseId: string | null; calls: number }>;
  /** The bound it was scored as it stood at, when one was. */
  cut?: SessionCutCode;
  /** Which bound that was and what it means, as a sentence (with `cut`). */
  cutReason?: string;
  /** For a continuation: why the part before it ended (its turns are not in this one). */
  continues?: SessionContinues;
}

/** Turns a suite run into report rows, in trace order, with missing test cases last. */
export function toResultRows(run: SuiteRun, suite: Suite): ResultRow[] {
  const rows = run.scored.flatMap(({ trace, testCaseId, outcomes }) =>
    traceResultRows(trace, testCaseId, outcomes),
  );
  for (const id of run.missing) {
    const scorers = suite.byId.get(id)?.scorers ?? [];
    for (const { scorer } of scorers) {
      rows.push({
        traceId: null,
        testCaseId: id,
        scorer: scorer.name,
        kind: scorer.kind,
        status: 'missing',
        score: null,
        label: null,
        reason: 'no trace was found for this test case',
        toolsUsed: [],
        toolSequence: [],
        details: {},
      });
    }
  }
  return rows;
}

/** The rows of one scored trace: one per scorer. The live service writes these as JSON Lines. */
export function traceResultRows(
  trace: NormalizedTrace,
  testCaseId: string,
  outcomes: readonly ScorerOutcome[],
): ResultRow[] {
  const toolSequence = trace.toolSequence.map(toJson);
  const session: ResultSession | undefined = trace.session && {
    id: trace.session.id,
    turns: trace.session.turns.map(t => ({
      traceId: t.traceId,
      testCaseId: t.testCaseId ?? null,
      calls: t.calls,
    })),
    ...(trace.session.part > 1 && { part: trace.session.part }),
    ...(trace.session.cut && { cut: trace.session.cut.code, cutReason: trace.session.cut.reason }),
    ...(trace.session.continues && { continues: trace.session.continues }),
  };
  return outcomes.map(({ scorer, kind, result }): ResultRow => {
    const base = {
      traceId: trace.traceId,
      testCaseId,
      scorer,
      kind,
      toolsUsed: trace.toolsUsed,
      toolSequence,
      ...(session && { session }),
    };
    if (result.status === 'scored') {
      return {
        ...base,
        status: 'scored',
        score: result.score,
        label: result.label,
        reason: result.reason,
        details: result.details,
      };
    }
    if (result.status === 'skipped')
      return {
        ...base,
        status: 'skipped',
        score: null,
        label: null,
        reason: result.reason,
        details: {},
      };
    return {
      ...base,
      status: 'failed',
      score: null,
      label: null,
      reason: result.error,
      details: { errorType: result.errorType },
    };
  });
}

function toJson(call: ToolCall): ToolCallJson {
  return { ...call, startTimeUnixNano: call.startTimeUnixNano.toString() };
}

/**
 * Results counted by outcome, for the summary line of a run's table, Markdown and HTML reports.
 * (The run summary a CI job commits and compares is `RunSummary` in decide/run-summary.ts: per test
 * case × scorer aggregates, not these counts.)
 */
export interface OutcomeCounts {
  results: number;
  pass: number;
  fail: number;
  skipped: number;
  failed: number;
  missing: number;
}

/** Counts rows by outcome. */
export function countOutcomes(rows: readonly ResultRow[]): OutcomeCounts {
  const s: OutcomeCounts = {
    results: rows.length,
    pass: 0,
    fail: 0,
    skipped: 0,
    failed: 0,
    missing: 0,
  };
  for (const row of rows) {
    if (row.status === 'scored') s[row.label === 'pass' ? 'pass' : 'fail']++;
    else s[row.status]++;
  }
  return s;
}
