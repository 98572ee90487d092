import type { TraceRun } from '../score/trace-run.js';
import {
  FAILED_FIELD,
  minuteOf,
  notScoredField,
  resultIncrements,
  summarizeMinutes,
} from './minute-aggregates.js';
import { matchesFilter, type ResultsFilter, type ResultsPage } from './results-query.js';
import { toolCallFacts } from '../score/tool-call-facts.js';
import { summarizeTools, toolIncrementer } from './tool-aggregates.js';
import { matchesTraceFilter, traceListEntry, type TraceListEntry } from './trace-list.js';
import {
  endedRunRecord,
  EXPIRED_REASON,
  failedRunRecord,
  nextExportStatus,
  type ResultsRetention,
  type ResultsStore,
} from './results-store.js';
import { MAX_RESULTS_PER_RUN, type RunRecord, type StoredResult } from './stored-result.js';
import {
  hasOutcomes,
  runRecordPatch,
  toStoredResults,
  type RunWrite,
} from './to-stored-results.js';

/**
 * The memory driver's results store: the newest `maxResults` results in a ring, the newest
 * `maxRuns` run records, and per-minute counters for summaries, all dropped after `retentionMs`.
 * Nothing survives a restart. Result ids are decimal sequence numbers.
 */
export function createMemoryResultsStore(
  retention: ResultsRetention,
  now: () => number = Date.now,
): ResultsStore {
  const ring: Array<StoredResult | undefined> = new Array<StoredResult | undefined>(
    retention.maxResults,
  );
  let seq = 0;
  const runs = new Map<string, RunRecord>();
  const minutes = new Map<number, Map<string, number>>();
  const toolIncrements = toolIncrementer(retention);

  const bump = (timeUnixMs: number, field: string, by: number): void => {
    const minute = minuteOf(timeUnixMs);
    let fields = minutes.get(minute);
    if (!fields) {
      minutes.set(minute, (fields = new Map<string, number>()));
      const oldest = minuteOf(now() - retention.retentionMs);
      for (const m of minutes.keys()) if (m < oldest) minutes.delete(m);
    }
    fields.set(field, (fields.get(field) ?? 0) + by);
  };

  const putRun = (record: RunRecord): void => {
    runs.delete(record.traceId);
    runs.set(record.traceId, record);
    if (runs.size > retention.maxRuns) runs.delete(runs.keys().next().value!);
  };

  const write = (run: TraceRun, how: Pick<RunWrite, 'exportState'>): void => {
    const t = now();
    const stored = toStoredResults(run).map((r): StoredResult => {
      const result = { id: String(++seq), ...r };
      ring[seq % retention.maxResults] = result;
      for (const [field, by] of resultIncrements(r)) bump(r.timeUnixMs, field, by);
      return result;
    });
    if (run.state === 'not_scored' && run.reason) bump(t, notScoredField(run.reason), 1);
    for (const [field, by] of toolIncrements(toolCallFacts(run))) bump(t, field, by);
    const previous = runs.get(run.traceId);
    const results = [...(previous?.results ?? []), ...stored].slice(-MAX_RESULTS_PER_RUN);
    putRun({
      ...runRecordPatch(run, t, retention.storeContent),
      receivedAtUnixMs: previous?.receivedAtUnixMs ?? null,
      export: hasOutcomes(run)
        ? { state: how.exportState, attempts: 0, lastError: null, updatedAtUnixMs: t }
        : (previous?.export ?? null),
      results,
    });
  };

  const minutesIn = (fromUnixMs: number, toUnixMs: number) => {
    const from = minuteOf(fromUnixMs);
    return [...minutes]
      .filter(([m]) => m >= from && m <= toUnixMs)
      .map(([minuteUnixMs, fields]) => ({ minuteUnixMs, fields }));
  };

  const fresh = (r: StoredResult | undefined): r is StoredResult =>
    r !== undefined && r.timeUnixMs >= now() - retention.retentionMs;

  return {
    name: 'memory',
    write,
    close: () => Promise.resolve(),
    recordExport(traceId, outcome) {
      const record = runs.get(traceId);
      if (record) record.export = nextExportStatus(record.export, outcome, now());
      return Promise.resolve();
    },
    recordFailure(traceId, phase, error) {
      const t = now();
      bump(t, FAILED_FIELD, 1);
      const previous = runs.get(traceId);
      putRun({
        ...failedRunRecord(traceId, phase, error, previous, t),
        results: previous?.results ?? [],
      });
      return Promise.resolve();
    },
    recordExpired(traceId, reason) {
      const t = now();
      bump(t, notScoredField(EXPIRED_REASON), 1);
      const previous = runs.get(traceId);
      putRun({
        ...endedRunRecord(traceId, 'expired', reason, previous, t),
        results: previous?.results ?? [],
      });
      return Promise.resolve();
    },
    summary(fromUnixMs, toUnixMs, filter = {}) {
      return Promise.resolve(
        summarizeMinutes(minutesIn(fromUnixMs, toUnixMs), fromUnixMs, toUnixMs, filter),
      );
    },
    tools(fromUnixMs, toUnixMs, filter = {}) {
      return Promise.resolve(
        summarizeTools(minutesIn(fromUnixMs, toUnixMs), fromUnixMs, toUnixMs, filter),
      );
    },
    results(filter: ResultsFilter, limit: number, cursor?: string): Promise<ResultsPage> {
      const out: StoredResult[] = [];
      const start = cursor === undefined ? seq : Math.min(seq, Number(cursor) - 1);
      const stop = Math.max(1, seq - retention.maxResults + 1);
      let i = start;
      for (; i >= stop && out.length <= limit; i--) {
        const r = ring[i % retention.maxResults];
        if (!fresh(r)) break;
        if (matchesFilter(r, filter)) out.push(r);
      }
      const more = out.length > limit;
      const page = out.slice(0, limit);
      return Promise.resolve({ results: page, nextCursor: more ? page.at(-1)!.id : null });
    },
    traces(filter, limit, cursor) {
      const oldest = now() - retention.retentionMs;
      // Newest first: the run records in the order they were written last. A cursor is the
      // `<time>:<trace id>` of the last trace of the page before.
      const [afterTime, afterId] = cursor ? cursorParts(cursor) : [Infinity, ''];
      // Traces written in the cursor's millisecond come after it once it has been passed.
      let passed = cursor === undefined;
      const out: TraceListEntry[] = [];
      for (const record of [...runs.values()].reverse()) {
        if (record.updatedAtUnixMs < oldest) break;
        const at = record.updatedAtUnixMs;
        if (at > afterTime) continue;
        if (at === afterTime && !passed) {
          passed = record.traceId === afterId;
          continue;
        }
        const entry = traceListEntry(record);
        if (!matchesTraceFilter(entry, filter)) continue;
        out.push(entry);
        if (out.length > limit) break;
      }
      const page = out.slice(0, limit);
      const last = page.at(-1);
      return Promise.resolve({
        traces: page,
        nextCursor: out.length > limit && last ? `${last.timeUnixMs}:${last.traceId}` : null,
      });
    },
    run(traceId) {
      const record = runs.get(traceId);
      return Promise.resolve(
        record && record.updatedAtUnixMs >= now() - retention.retentionMs ? record : undefined,
      );
    },
  };
}

function cursorParts(cursor: string): [number, string] {
  const at = cursor.indexOf(':');
  return [Number(cursor.slice(0, at)), cursor.slice(at + 1)];
}
