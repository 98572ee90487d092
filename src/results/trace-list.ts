import type { SessionContinues, SessionCutCode } from '../normalize/session-pass.js';
import type { SharedCopies } from './shared-copies.js';
import type { RunRecord, RunState, StoredResult, StoredToolCall } from './stored-result.js';

/** One recent trace as `GET /api/v1/traces` lists it: what it was scored against, or why not. */
export interface TraceListEntry {
  traceId: string;
  /** When its run record was written, in Unix milliseconds. */
  timeUnixMs: number;
  state: RunState;
  /** Why it was not scored, failed or expired; what it waits for. */
  reason: string | null;
  serviceName: string;
  serviceVersion: string | null;
  testCaseId: string | null;
  /** What it was scored against: `suite / test case` or `rule:<name>`. */
  matched: string[];
  /** Its tool calls' names, in order (at most {@link MAX_LISTED_TOOLS}). */
  tools: string[];
  toolCalls: number;
  /** Its calls by outcome. */
  outcomes: { ok: number; error: number; refused: number };
  /** Its results by label (`skipped` and `failed` for results without one). */
  results: { pass: number; fail: number; skipped: number; failed: number };
  /**
   * A session's record: its id and part, how many traces (turns) it has, the bound it was cut at
   * (a code, with why), and for a continuation why the part before it ended.
   */
  session?: {
    id: string;
    part: number;
    traces: number;
    cut: SessionCutCode | null;
    cutReason: string | null;
    continues: SessionContinues | null;
  };
}

/** Tool names kept per listed trace. */
export const MAX_LISTED_TOOLS = 20;

/** What `GET /api/v1/traces` may be narrowed to; filters combine with AND. */
export interface TracesFilter {
  service?: string;
  /** A call of this tool (its name as listed). */
  tool?: string;
  /** A call with this outcome. */
  outcome?: 'ok' | 'error' | 'refused';
  state?: RunState;
  /** A result with this label. */
  label?: 'pass' | 'fail';
  fromUnixMs?: number;
  toUnixMs?: number;
  /** List sessions' run records (`session:<id>`, each part its own) instead of traces'. */
  sessions?: boolean;
}

/** One page of listed traces, newest first; `nextCursor` continues after the last one. */
export interface TracesPage {
  traces: TraceListEntry[];
  nextCursor: string | null;
}

/**
 * A run record as the trace list shows it, with `results` its results (the record's own unless
 * given apart: a store writing a pass has them before it has the record).
 */
export function traceListEntry(
  record: Omit<RunRecord, 'export' | 'receivedAtUnixMs' | 'results' | 'toolCalls'> &
    Partial<Pick<RunRecord, 'results'>> & {
      toolCalls: ReadonlyArray<Pick<StoredToolCall, 'name' | 'status' | 'outcome'>>;
    },
  results: ReadonlyArray<Pick<StoredResult, 'label' | 'status'>> = record.results ?? [],
): TraceListEntry {
  const outcomes = { ok: 0, error: 0, refused: 0 };
  const tools = new Array<string>(Math.min(record.toolCalls.length, MAX_LISTED_TOOLS));
  for (let i = 0; i < record.toolCalls.length; i++) {
    const call = record.toolCalls[i]!;
    outcomes[call.outcome ?? (call.status === 'ok' ? 'ok' : 'error')]++;
    if (i < tools.length) tools[i] = call.name;
  }
  const labels = { pass: 0, fail: 0, skipped: 0, failed: 0 };
  for (const r of results) labels[r.label ?? (r.status === 'skipped' ? 'skipped' : 'failed')]++;
  return {
    traceId: record.traceId,
    timeUnixMs: record.updatedAtUnixMs,
    state: record.state,
    reason: record.reason,
    serviceName: record.serviceName,
    serviceVersion: record.serviceVersion,
    testCaseId: record.testCaseId,
    matched: record.matched,
    tools,
    toolCalls: record.toolCalls.length,
    outcomes,
    results: labels,
    ...(record.session && {
      session: {
        id: record.session.id,
        part: record.session.part ?? 1,
        traces: record.session.traceIds.length,
        cut: record.session.cut,
        cutReason: record.session.cutReason ?? null,
        continues: record.session.continues ?? null,
      },
    }),
  };
}

/**
 * `entry` (changed in place) with its texts from the trace (tool names, service name and version,
 * test case id, reason, session id and cut reason) as strings of their own, from `copies`, for a
 * store that keeps it past its trace: a name cut or trimmed from a sender's attribute is a view of
 * all of it, which a store bounded in characters would hold uncounted. A name `copies` has seen
 * costs a lookup, not a copy.
 */
export function keptTraceListEntry(entry: TraceListEntry, copies: SharedCopies): TraceListEntry {
  const tools = entry.tools;
  for (let i = 0; i < tools.length; i++) tools[i] = copies.of(tools[i]!);
  entry.serviceName = copies.of(entry.serviceName);
  entry.serviceVersion = copies.of(entry.serviceVersion);
  entry.testCaseId = copies.of(entry.testCaseId);
  entry.reason = copies.of(entry.reason);
  if (entry.session) {
    entry.session.id = copies.of(entry.session.id);
    entry.session.cutReason = copies.of(entry.session.cutReason);
  }
  return entry;
}

/** True when `entry` passes every filter of `f`. */
export function matchesTraceFilter(entry: TraceListEntry, f: TracesFilter): boolean {
  return (
    (f.service === undefined || entry.serviceName === f.service) &&
    (f.tool === undefined || entry.tools.includes(f.tool)) &&
    (f.outcome === undefined || entry.outcomes[f.outcome] > 0) &&
    (f.state === undefined || entry.state === f.state) &&
    (f.label === undefined || entry.results[f.label] > 0) &&
    (f.fromUnixMs === undefined || entry.timeUnixMs >= f.fromUnixMs) &&
    (f.toUnixMs === undefined || entry.timeUnixMs <= f.toUnixMs)
  );
}
