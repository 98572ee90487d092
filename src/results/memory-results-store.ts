import type { TraceRun } from '../score/trace-run.js';
import {
  minuteOf,
  resultIncrementer,
  SESSIONS_FIELD,
  summarizeMinutes,
} from './minute-aggregates.js';
import {
  matchesFilter,
  type FilteredFields,
  type ResultsFilter,
  type ResultsPage,
} from './results-query.js';
import { toolCallFacts } from '../score/tool-call-facts.js';
import { compactRecordLine, decodeCompactRecord } from './compact-run-record.js';
import { compactResultJson, expandCompactResult } from './compact-result.js';
import { callOutcomes, storedCallOutcomes } from './call-outcomes.js';
import { notScoredField } from './not-scored-field.js';
import { FailureSignatureMinutes } from './failure-signature-minutes.js';
import { MemoryMinuteCounters } from './memory-minute-counters.js';
import { summarizeFailures } from './summarize-failures.js';
import { addsToStoredResults, mergeRunResults } from './merge-run-results.js';
import { failureIncrements, replacedIncrements, toolsCountedAt } from './replaced-pass.js';
import { isSessionRecordKey, runRecordKey, sessionRecordKey } from './run-record-key.js';
import { keptSessionParts } from './kept-session-parts.js';
import { MEMORY_STORE_BOUNDS } from './memory-store-bounds.js';
import type { SessionCutCode } from '../normalize/session-pass.js';
import { summarizeTools, toolIncrementer } from './tool-aggregates.js';
import { SharedCopies } from './shared-copies.js';
import {
  keptTraceListEntry,
  matchesTraceFilter,
  traceListEntry,
  type TraceListEntry,
} from './trace-list.js';
import {
  amendedRecord,
  endedRunRecord,
  EXPIRED_REASON,
  failedRunRecord,
  nextExportStatus,
  type ResultsRetention,
  type ResultsStore,
} from './results-store.js';
import { type ExportStatus, type RunRecord, type StoredResult } from './stored-result.js';
import {
  hasOutcomes,
  runRecordPatch,
  toStoredResults,
  type RunWrite,
  type WrittenRecordPatch,
} from './to-stored-results.js';

/**
 * A result as the ring keeps it: what filters read, and the rest as compact JSON
 * (`compactResultJson`: defaults left out, its tool sequence as indices). A string is one object
 * to the garbage collector however much it holds; the object graph of a result (its arrays of
 * tools, its strings) is many, and with thousands of results held, marking them was most of what
 * a full collection cost the embedded service (`npm run bench`).
 */
interface RingEntry extends FilteredFields, Pick<StoredResult, 'id'> {
  json: string;
  /** A later pass of its trace replaced it (see `replacedIncrements`): listed no more. */
  replaced?: true;
}

/** A run record as kept: its line of the trace list, its export state, the rest as JSON. */
interface RunEntry {
  traceId: string;
  updatedAtUnixMs: number;
  receivedAtUnixMs: number | null;
  export: ExportStatus | null;
  /** The record without `export`, `receivedAtUnixMs` and `results`, compact (`compactRecordLine`). */
  json: string;
  /**
   * Its results, each as the JSON its ring entry holds: a result is stringified once, for the
   * ring and the record (stringifying was the store's largest cost per trace in the bench).
   */
  results: string[];
  listed: TraceListEntry;
}

/** A result the store holds (its compact JSON: see `compactResultJson`). */
function resultOf(json: string): StoredResult {
  return expandCompactResult(
    JSON.parse(json) as Record<string, unknown>,
  ) as unknown as StoredResult;
}

/** No results before a pass (read, never written). */
const NONE: readonly never[] = [];

/**
 * Characters of failure signatures the memory store holds over its retention (about 10,000
 * signature-minutes); past it, its oldest minutes of signatures go.
 */
const MAX_SIGNATURE_CHARS = 4 * 1024 * 1024;

/**
 * The memory driver's results store: the newest `maxResults` results in a ring, the newest
 * `maxRuns` run records (both within {@link MEMORY_STORE_BOUNDS}), per-minute counters for
 * summaries and per-minute failure signatures (within {@link MAX_SIGNATURE_CHARS}), all dropped
 * after `retentionMs`. Nothing survives a restart. Result ids are decimal sequence numbers.
 * Results and records are held as JSON (see {@link RingEntry}) and parsed when read.
 */
/** The memory driver's results store: a {@link ResultsStore}, and what its sessions ask of it. */
export interface MemoryResultsStore extends ResultsStore {
  /**
   * The latest part of a session whose record is kept, and the cut it was scored with;
   * `undefined` when no part's record is (records go oldest written first, so part 1's is
   * usually the first to go: counting up from it missed the later parts still kept).
   * Synchronous: the memory driver's sessions ask it before opening a session's part 1, so that a
   * session they forgot does not open part 1 again while a record of it is kept.
   */
  lastSessionPart(
    sessionId: string,
  ): { part: number; cut: SessionCutCode | undefined; failed: boolean } | undefined;
}

export function createMemoryResultsStore(
  retention: ResultsRetention,
  now: () => number = Date.now,
): MemoryResultsStore {
  const ring: Array<RingEntry | undefined> = new Array<RingEntry | undefined>(retention.maxResults);
  let seq = 0;
  // The characters the ring's results hold, and the oldest sequence number it may still hold.
  let resultChars = 0;
  let oldestSeq = 1;
  const runs = new Map<string, RunEntry>();
  // The characters the run records hold (`charsOf`).
  let runChars = 0;
  const sessionParts = keptSessionParts();
  // Sender's names the store keeps, as copies of their own (see `keptTraceListEntry`).
  const listedNames = new SharedCopies();
  const counters = new MemoryMinuteCounters(retention.retentionMs, now);
  const toolIncrements = toolIncrementer(retention);
  const resultIncrements = resultIncrementer(retention);
  const signatures = new FailureSignatureMinutes(retention, {
    keepMs: retention.retentionMs,
    maxHeldChars: MAX_SIGNATURE_CHARS,
    now,
  });

  /** The full record of an entry. */
  const recordOf = (entry: RunEntry): RunRecord => ({
    ...decodeCompactRecord(JSON.parse(entry.json) as Record<string, unknown>, entry.traceId),
    receivedAtUnixMs: entry.receivedAtUnixMs,
    export: entry.export,
    results: entry.results.map(resultOf),
  });

  /**
   * Keeps the record of `fields`, its receipt time and export state, whose results are `results`
   * (as JSON, `resultsJson`), newest last. `fields` is read, not kept (nor copied: the memory
   * store writes a record a pass); its `export`, `receivedAtUnixMs` and `results` are not read.
   */
  const putRun = (
    fields: WrittenRecordPatch,
    receivedAtUnixMs: number | null,
    exportStatus: ExportStatus | null,
    results: ReadonlyArray<Pick<StoredResult, 'label' | 'status'>>,
    resultsJson: string[],
  ): void => {
    const before = runs.get(fields.traceId);
    if (before) {
      runs.delete(fields.traceId);
      runChars -= charsOf(before);
    } else sessionParts.kept(fields.traceId);
    const entry: RunEntry = {
      traceId: fields.traceId,
      updatedAtUnixMs: fields.updatedAtUnixMs,
      receivedAtUnixMs,
      export: exportStatus,
      // Compact (defaults left out, tool calls as rows); the results are kept apart.
      json: compactRecordLine(fields, fields.traceId, {
        contentAsJson: false,
        withReceived: false,
      }),
      results: resultsJson,
      listed: keptTraceListEntry(traceListEntry(fields, results), listedNames),
    };
    runs.set(fields.traceId, entry);
    runChars += charsOf(entry);
    while (
      runs.size > retention.maxRuns ||
      (runChars > MEMORY_STORE_BOUNDS.maxRunChars && runs.size > 1)
    ) {
      const oldest = runs.keys().next().value!;
      runChars -= charsOf(runs.get(oldest)!);
      runs.delete(oldest);
      sessionParts.gone(oldest);
    }
  };

  /** Keeps `entry` as result `id` (`seq`) in the ring, letting the oldest go past the bound. */
  const putResult = (entry: RingEntry): void => {
    const slot = seq % retention.maxResults;
    resultChars += entry.json.length - (ring[slot]?.json.length ?? 0);
    ring[slot] = entry;
    oldestSeq = Math.max(oldestSeq, seq - retention.maxResults + 1);
    for (; resultChars > MEMORY_STORE_BOUNDS.maxResultChars && oldestSeq < seq; oldestSeq++) {
      const at = oldestSeq % retention.maxResults;
      if (ring[at]?.id !== String(oldestSeq)) continue;
      resultChars -= ring[at].json.length;
      ring[at] = undefined;
    }
  };

  /**
   * Takes back what the passes stored for a trace counted, and drops their results from the
   * ring, when `run` replaces them (a rescore).
   */
  const replace = (previous: RunRecord): void => {
    for (const [minute, field, by] of replacedIncrements(
      previous,
      toolIncrements,
      resultIncrements,
    ))
      counters.bump(minute, field, by);
    const countedAt = toolsCountedAt(previous.results);
    if (countedAt !== undefined) signatures.count(storedCallOutcomes(previous), countedAt, -1);
    for (const r of previous.results) {
      const entry = ring[Number(r.id) % retention.maxResults];
      if (entry?.id === r.id) entry.replaced = true;
    }
  };

  const write = (run: TraceRun, how: Pick<RunWrite, 'exportState'>): void => {
    const t = now();
    const previous = runs.get(runRecordKey(run));
    const previousRecord = previous && recordOf(previous);
    if (previousRecord && !addsToStoredResults(run)) replace(previousRecord);
    // The results as written, without ids: what the counters and the trace list read.
    const stored = toStoredResults(run);
    // Sized once: the record keeps this array (see `RunEntry.results`).
    const storedJson = new Array<string>(stored.length);
    for (let i = 0; i < stored.length; i++) {
      const r = stored[i]!;
      const id = (r.id = String(++seq));
      const json = compactResultJson(r);
      putResult({
        id,
        timeUnixMs: r.timeUnixMs,
        traceId: r.traceId,
        scorer: r.scorer,
        label: r.label,
        status: r.status,
        testCaseId: listedNames.of(r.testCaseId),
        serviceName: listedNames.of(r.serviceName),
        serviceVersion: listedNames.of(r.serviceVersion),
        json,
      });
      const minute = minuteOf(r.timeUnixMs);
      resultIncrements(r, counters.at(minute));
      storedJson[i] = json;
    }
    if (run.state === 'not_scored' && run.reason)
      counters.bump(minuteOf(t), notScoredField(run.reason, run.testCaseId), 1);
    if (run.session && run.state === 'scored') counters.bump(minuteOf(t), SESSIONS_FIELD, 1);
    const toolsAt = toolsCountedAt(stored) ?? t;
    const toolsMinute = minuteOf(toolsAt);
    toolIncrements(toolCallFacts(run), counters.at(toolsMinute));
    signatures.count(callOutcomes(run), toolsAt);
    putRun(
      // Content kept as values where the record's JSON writes them as their text (read back so).
      runRecordPatch(run, t, retention.storeContent, 'values'),
      previous?.receivedAtUnixMs ?? null,
      hasOutcomes(run)
        ? { state: how.exportState, attempts: 0, lastError: null, updatedAtUnixMs: t }
        : (previous?.export ?? null),
      mergeRunResults<Pick<StoredResult, 'label' | 'status'>>(
        run,
        previousRecord?.results ?? NONE,
        stored,
      ),
      mergeRunResults(run, previous?.results ?? NONE, storedJson),
    );
  };

  const minutesIn = (fromUnixMs: number, toUnixMs: number) => counters.in(fromUnixMs, toUnixMs);

  const fresh = (r: RingEntry | undefined): r is RingEntry =>
    r !== undefined && r.timeUnixMs >= now() - retention.retentionMs;

  /** A run ended without a pass (failed, expired): its record keeps what was known, and its results. */
  const endRun = (traceId: string, record: Omit<RunRecord, 'results'>): void => {
    const previous = runs.get(traceId);
    putRun(
      record,
      record.receivedAtUnixMs,
      record.export,
      previous ? recordOf(previous).results : [],
      previous?.results ?? [],
    );
  };

  return {
    name: 'memory',
    write,
    lastSessionPart(sessionId) {
      const part = sessionParts.latest(sessionId);
      if (part === undefined) return undefined;
      const last = recordOf(runs.get(sessionRecordKey(sessionId, part))!);
      return { part, cut: last.session?.cut ?? undefined, failed: last.state === 'failed' };
    },
    amendRun(traceId, amendment) {
      const entry = runs.get(traceId);
      if (entry) {
        const record = decodeCompactRecord(
          JSON.parse(entry.json) as Record<string, unknown>,
          traceId,
        );
        runChars -= entry.json.length;
        entry.json = compactRecordLine(amendedRecord(record, amendment), traceId, {
          contentAsJson: false,
        });
        runChars += entry.json.length;
      }
      return Promise.resolve();
    },
    close: () => Promise.resolve(),
    recordExport(traceId, outcome) {
      const entry = runs.get(traceId);
      if (entry) entry.export = nextExportStatus(entry.export, outcome, now());
      return Promise.resolve();
    },
    recordFailure(traceId, phase, error, session) {
      const t = now();
      const previous = runs.get(traceId);
      const previousRecord = previous && recordOf(previous);
      for (const [minute, field, by] of failureIncrements(previousRecord, t))
        counters.bump(minute, field, by);
      endRun(traceId, failedRunRecord(traceId, phase, error, previousRecord, t, session));
      return Promise.resolve();
    },
    recordExpired(traceId, reason) {
      const t = now();
      counters.bump(minuteOf(t), notScoredField(EXPIRED_REASON), 1);
      const previous = runs.get(traceId);
      endRun(
        traceId,
        endedRunRecord(traceId, 'expired', reason, previous && recordOf(previous), t),
      );
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
    failures(fromUnixMs, toUnixMs, filter = {}) {
      const dropped = signatures.droppedBeforeUnixMs;
      return Promise.resolve(
        summarizeFailures(
          signatures.minutesIn(fromUnixMs, toUnixMs),
          fromUnixMs,
          toUnixMs,
          filter,
          dropped || null,
        ),
      );
    },
    results(filter: ResultsFilter, limit: number, cursor?: string): Promise<ResultsPage> {
      const out: RingEntry[] = [];
      const start = cursor === undefined ? seq : Math.min(seq, Number(cursor) - 1);
      const stop = Math.max(1, seq - retention.maxResults + 1);
      let i = start;
      for (; i >= stop && out.length <= limit; i--) {
        const r = ring[i % retention.maxResults];
        if (!fresh(r)) break;
        if (!r.replaced && matchesFilter(r, filter)) out.push(r);
      }
      const more = out.length > limit;
      const page = out.slice(0, limit).map(r => resultOf(r.json));
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
      const sessions = filter.sessions === true;
      for (const entry of [...runs.values()].reverse()) {
        if (entry.updatedAtUnixMs < oldest) break;
        if (isSessionRecordKey(entry.traceId) !== sessions) continue;
        const at = entry.updatedAtUnixMs;
        if (at > afterTime) continue;
        if (at === afterTime && !passed) {
          passed = entry.traceId === afterId;
          continue;
        }
        if (!matchesTraceFilter(entry.listed, filter)) continue;
        out.push(entry.listed);
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
      const entry = runs.get(traceId);
      return Promise.resolve(
        entry && entry.updatedAtUnixMs >= now() - retention.retentionMs
          ? recordOf(entry)
          : undefined,
      );
    },
  };
}

/** The characters a run record holds: its JSON and its results'. */
function charsOf(entry: RunEntry): number {
  let chars = entry.json.length;
  for (const r of entry.results) chars += r.length;
  return chars;
}

function cursorParts(cursor: string): [number, string] {
  const at = cursor.indexOf(':');
  return [Number(cursor.slice(0, at)), cursor.slice(at + 1)];
}
