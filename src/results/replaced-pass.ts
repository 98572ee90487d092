import type { ToolCallFact } from '../score/tool-call-facts.js';
import {
  FAILED_FIELD,
  minuteOf,
  type AddIncrement,
  type ResultIncrements,
  SESSIONS_FIELD,
} from './minute-aggregates.js';
import { notScoredField } from './not-scored-field.js';
import { EXPIRED_REASON } from './results-store.js';
import type { RunRecord, StoredResult, StoredToolCall } from './stored-result.js';

/** One counter change: the minute, the field, and by how much. */
export type MinuteIncrement = [minuteUnixMs: number, field: string, by: number];

/** What of a stored run record the counters of its passes can be read back from. */
export type CountedRecord = Pick<
  RunRecord,
  | 'state'
  | 'reason'
  | 'testCaseId'
  | 'updatedAtUnixMs'
  | 'serviceName'
  | 'serviceVersion'
  | 'toolCalls'
  | 'session'
> & { results: ReadonlyArray<Omit<StoredResult, 'id'>> };

/**
 * The minute in which a pass counted its tool calls: its first result's (see
 * {@link toolsCountedAt}); `undefined` when it counted none (a pass without results counts no
 * calls, and the judge pass never does).
 */
export function toolsCountedAt(
  results: ReadonlyArray<Pick<StoredResult, 'phase' | 'timeUnixMs'>>,
): number | undefined {
  return results.find(r => r.phase !== 'llm')?.timeUnixMs;
}

/**
 * The counter changes that take back what a trace's stored passes counted, for a pass that
 * replaces them (a rescore after late spans: see `addsToStoredResults`): each stored result's
 * increments, its tool calls' (read back from the record: outcome, duration, argument checks,
 * repeats), the trace's count among those not scored, failed or expired, and a session's count
 * among sessions scored. Each `by` is negated. Pure.
 *
 * Limits: a record keeps at most 100 results and 200 tool calls, so a trace with more is taken
 * back in part; services, agents and tools are bounded by `resultIncrements` and
 * `toolIncrements`, the store's own, as when counted.
 */
export function replacedIncrements(
  record: CountedRecord,
  toolIncrements: (facts: readonly ToolCallFact[], add: AddIncrement) => void,
  resultIncrements: ResultIncrements,
): MinuteIncrement[] {
  const out: MinuteIncrement[] = [];
  for (const r of record.results) {
    const minute = minuteOf(r.timeUnixMs);
    resultIncrements(r, (field, by) => out.push([minute, field, -by]));
  }
  const toolsAt = toolsCountedAt(record.results);
  if (toolsAt !== undefined && record.toolCalls.length > 0) {
    const agent = record.results.find(r => r.agentName)?.agentName ?? '';
    const facts = record.toolCalls.map(c => storedCallFact(c, record, agent));
    const minute = minuteOf(toolsAt);
    toolIncrements(facts, (field, by) => out.push([minute, field, -by]));
  }
  const ended = endedField(record);
  if (ended) out.push([minuteOf(record.updatedAtUnixMs), ended, -1]);
  if (record.session && record.state === 'scored')
    out.push([minuteOf(record.updatedAtUnixMs), SESSIONS_FIELD, -1]);
  return out;
}

/** The field a trace that ended without results was counted in, if any. */
function endedField(record: CountedRecord): string | undefined {
  if (record.state === 'failed') return FAILED_FIELD;
  if (record.state === 'expired') return notScoredField(EXPIRED_REASON);
  if (record.state === 'not_scored' && record.reason)
    return notScoredField(record.reason, record.testCaseId ?? undefined);
  return undefined;
}

/** A stored call as the fact it was counted as (see `toolCallFacts`). */
function storedCallFact(call: StoredToolCall, record: CountedRecord, agent: string): ToolCallFact {
  const problems = call.argumentProblems;
  return {
    service: record.serviceName,
    version: record.serviceVersion ?? '',
    agent: call.agent ?? agent,
    tool: call.name,
    outcome: call.outcome ?? (call.status === 'error' ? 'error' : 'ok'),
    durationMs: call.durationMs,
    checked: Array.isArray(problems),
    invalid: Array.isArray(problems) && problems.length > 0,
    ...(call.schemaSource && { schemaSource: call.schemaSource.kind }),
    unknown: call.offered === false,
    repeated: call.repeated === true,
  };
}

/**
 * The counter changes a failed pass makes, given the record it replaces: a failure counted at
 * `atUnixMs`, unless the record had already failed (one record, one failure: a held session part
 * that fails again, and is scored at last, took back only one); and a session part scored before
 * is no longer counted among sessions scored (its later pass, replacing this record, takes back
 * nothing there). Pure.
 */
export function failureIncrements(
  previous: Pick<RunRecord, 'state' | 'updatedAtUnixMs' | 'session'> | undefined,
  atUnixMs: number,
): MinuteIncrement[] {
  const out: MinuteIncrement[] = [];
  if (previous?.state !== 'failed') out.push([minuteOf(atUnixMs), FAILED_FIELD, 1]);
  if (previous?.session && previous.state === 'scored')
    out.push([minuteOf(previous.updatedAtUnixMs), SESSIONS_FIELD, -1]);
  return out;
}
