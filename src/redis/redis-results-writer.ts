import { addsToStoredResults } from '../results/merge-run-results.js';
import { minuteOf, resultIncrementer, SESSIONS_FIELD } from '../results/minute-aggregates.js';
import { replacedIncrements, toolsCountedAt } from '../results/replaced-pass.js';
import { notScoredField } from '../results/not-scored-field.js';
import { nextExportStatus, type ResultsRetention } from '../results/results-store.js';
import { runRecordKey } from '../results/run-record-key.js';
import type { ExportOutcome, ExportStatus } from '../results/stored-result.js';
import {
  hasOutcomes,
  runRecordPatch,
  toStoredResults,
  type RunWrite,
} from '../results/to-stored-results.js';
import { callOutcomes, storedCallOutcomes } from '../results/call-outcomes.js';
import { toolIncrementer } from '../results/tool-aggregates.js';
import { toolCallFacts } from '../score/tool-call-facts.js';
import type { TraceRun } from '../score/trace-run.js';
import { sendBatch, type RedisClient } from './redis-connection.js';
import type { RedisFailureSignatures } from './redis-failure-signatures.js';
import type { RedisMinuteCounters } from './redis-minute-counters.js';
import type { ResultsStoreCommands } from './results-store-scripts.js';
import type { ResultsStoreKeys } from './results-store-keys.js';
import { compactRecordLine } from '../results/compact-run-record.js';
import { readRunResults } from './read-run-results.js';
import { passResultLines, wholeResultLine } from './result-lines.js';
import {
  exportLine,
  hasExportLine,
  parseRunValue,
  pointerLine,
  type ParsedRun,
  resultCode,
} from './run-record-layout.js';
import { streamOrder } from './stream-lines.js';

/** Trace runs are written this long after the first one waiting, or at this many. */
const WRITE_DELAY_MS = 50;
const WRITE_BATCH = 256;
/**
 * A run whose evaluation spans are being exported waits this long at most for the outcome, to
 * write both at once (an export takes a few ms; a failing one its timeout and retries).
 */
const HOLD_MS = 2000;
/** Runs kept for the next write while Redis refuses them; beyond, the oldest are dropped. */
const MAX_QUEUED_RUNS = 10_000;
/** The stream is trimmed to `maxResults` and the retention at most this often. */
const TRIM_MS = 1000;

/** A write the store holds until its next batch: a pass of the loop, or an export outcome. */
type QueuedWrite =
  QueuedRun | { kind: 'export'; traceId: string; outcome: ExportOutcome; atMs: number };

/** A pass of the loop, as the store writes it. */
interface QueuedRun {
  kind: 'run';
  traceId: string;
  record: string;
  append: boolean;
  /** The pass's export state; `undefined` when it has nothing to export. */
  export: ExportStatus | undefined;
  /** Its export has not reported yet: the write waits for it, HOLD_MS at most. */
  awaitingExport: boolean;
  queuedAtMs: number;
  /** Its results' stream lines (see `result-lines.ts`), one a result. */
  results: string[];
  /** A letter per result (see `ResultsPointer`): layout 2's run record points at them so. */
  codes: string;
  /** Layout 2: where its results were added to the stream, once they were. */
  placed?: { entryId: string; line: number };
}

/** The write side of the Redis results store: trace runs and export outcomes, batched. */
export interface RedisResultsWriter {
  /** Queues a trace run's pass (its record and results) and counts it in the minute counters. */
  write(run: TraceRun, how: Pick<RunWrite, 'exportState'>): void;
  /** Folds an export outcome into its run's queued write, or queues it behind that write. */
  recordExport(traceId: string, outcome: ExportOutcome): void;
  /**
   * Writes what is queued: all of it when `force` (before a read of this process's own writes),
   * else all but the runs still waiting for their export's first outcome (for at most HOLD_MS),
   * and anything queued after them for the same trace, which must reach Redis after them.
   * Resolves once the batch (and every one before it) was written or failed.
   */
  flush(force?: boolean): Promise<void>;
}

/**
 * The results store's writes (see `createRedisResultsStore` for the keys): trace runs are written
 * in batches, off the job's path. The sink encodes a run (each result's line once: layout 1
 * sends it to the stream and the run record, layout 2 to the stream only) and returns; every
 * WRITE_DELAY_MS, or at WRITE_BATCH runs, one pipeline writes them (layout 2: after the script
 * call that adds the batch's results to the stream, whose entry id its run records point at; a
 * run whose results were added is not added again when the rest of its batch is retried). An
 * export outcome for a run still waiting is folded into its write. A failed write
 * keeps its runs for the next one, up to MAX_QUEUED_RUNS (the oldest are then dropped, and
 * logged through `onError`). A rescore found by its write takes back, in the minute counters,
 * what the pass it replaced counted.
 */
export function createRedisResultsWriter(
  redis: RedisClient & ResultsStoreCommands,
  keys: ResultsStoreKeys,
  retention: ResultsRetention,
  counters: RedisMinuteCounters,
  options: {
    now: () => number;
    onError?: ((error: Error) => void) | undefined;
    /** Where failed calls are counted by signature, beside the minute counters. */
    signatures?: RedisFailureSignatures;
    /** The results layout written (`results.layout`); both are read. @defaultValue 1 */
    layout?: 1 | 2;
  },
): RedisResultsWriter {
  const { now } = options;
  const layout = options.layout ?? 1;
  const {
    stream,
    streamIndex,
    streamCount,
    listStream,
    listIndex,
    listCount,
    replacedSet,
    runKey,
  } = keys;
  const ttl = retention.retentionMs;
  const toolIncrements = toolIncrementer(retention);
  const resultIncrements = resultIncrementer(retention);
  const count = (minute: number, field: string, by: number): void =>
    counters.count(minute, field, by);
  let lastTrimMs = 0;
  let queued: QueuedWrite[] = [];
  /** The latest queued run write of each trace, while it waits. */
  const waitingRuns = new Map<string, QueuedRun>();
  /** Writes held back by the last flush (they wait for their export's outcome). */
  let heldCount = 0;
  let writeTimer: NodeJS.Timeout | undefined;
  let writing: Promise<void> = Promise.resolve();
  const flushWrites = (force = false): Promise<void> => {
    clearTimeout(writeTimer);
    writeTimer = undefined;
    const t = now();
    const batch: QueuedWrite[] = [];
    const held: QueuedWrite[] = [];
    const heldTraces = new Set<string>();
    for (const w of queued) {
      if (
        !force &&
        (heldTraces.has(w.traceId) ||
          (w.kind === 'run' && w.awaitingExport && t - w.queuedAtMs < HOLD_MS))
      ) {
        held.push(w);
        heldTraces.add(w.traceId);
        continue;
      }
      batch.push(w);
      if (w.kind === 'run' && waitingRuns.get(w.traceId) === w) waitingRuns.delete(w.traceId);
    }
    queued = held;
    heldCount = held.length;
    if (held.length > 0) writeTimer = setTimeout(() => void flushWrites(), WRITE_DELAY_MS).unref();
    if (batch.length === 0) return writing;
    writing = writing.then(async () => {
      const trim = t - lastTrimMs > TRIM_MS;
      if (trim) lastTrimMs = t;
      // A trace written twice in one batch, the second replacing the first: the first's
      // results never reach the stream.
      const replacedAt = new Map<string, number>();
      batch.forEach((w, i) => {
        if (w.kind === 'run' && !w.append) replacedAt.set(w.traceId, i);
      });
      const streamed = batch.filter(
        (w, i): w is QueuedRun =>
          w.kind === 'run' && i >= (replacedAt.get(w.traceId) ?? 0) && w.results.length > 0,
      );
      // Layout 2 writes results first: the run records written after point at their entry.
      const results = layout === 1 ? streamed.flatMap(w => w.results) : [];
      const listed = batch.flatMap(w => (w.kind === 'run' ? [`${w.traceId} ${w.queuedAtMs}`] : []));
      try {
        if (layout === 2) await placeResults(streamed.filter(w => !w.placed));
        // One batch (`sendBatch`): a run record's key is on its trace id's slot, the stream's
        // keys on `{r}`.
        const replies = await sendBatch<typeof redis>(redis, target => [
          ...batch.map(w => {
            if (w.kind === 'export') {
              // The outcome as a first attempt's status: its attempts are the ones to add.
              const status = nextExportStatus(null, w.outcome, w.atMs);
              return target.spanscoreRecordExport(
                runKey(w.traceId),
                status.state,
                String(status.updatedAtUnixMs),
                JSON.stringify(status.lastError ?? ''),
                String(status.attempts),
              );
            }
            const line = exportLine(w.export);
            const pointer = w.placed ? [pointerLine(w.placed.entryId, w.placed.line, w.codes)] : [];
            // Layout 2: a pass replaced in this batch never reaches the stream (see above); its
            // record keeps its results, for the pass replacing it to take back what it counted.
            const lines = layout === 1 || !w.placed ? w.results : pointer;
            // A replacing write gets the value it replaced back (SET … GET), to take back what
            // that pass counted: a rescore is known from the reply, in the same command.
            return w.append
              ? target.spanscoreAppendRun(
                  runKey(w.traceId),
                  w.export ? line : '',
                  w.record,
                  String(ttl),
                  ...lines,
                )
              : target.set(
                  runKey(w.traceId),
                  [line, w.record, ...lines].join('\n'),
                  'PX',
                  ttl,
                  'GET',
                );
          }),
          ...(results.length
            ? [
                target.spanscoreAddResults(
                  stream,
                  streamIndex,
                  streamCount,
                  String(results.length),
                  results.join('\n'),
                ),
              ]
            : []),
          ...(listed.length
            ? [
                target.spanscoreAddResults(
                  listStream,
                  listIndex,
                  listCount,
                  String(listed.length),
                  listed.join('\n'),
                ),
              ]
            : []),
          ...(trim
            ? [
                target.spanscoreTrimResults(
                  stream,
                  streamIndex,
                  streamCount,
                  String(retention.maxResults),
                  String(t - ttl),
                  '1000',
                ),
                target.spanscoreTrimResults(
                  listStream,
                  listIndex,
                  listCount,
                  String(retention.maxRuns),
                  String(t - ttl),
                  '1000',
                ),
                target.zremrangebyscore(replacedSet, '-inf', `(${streamOrder(`${t - ttl}-0`)}`),
              ]
            : []),
        ]);
        const resultsEntry = results.length ? replies[batch.length] : undefined;
        const listEntry = replies[batch.length + (results.length ? 1 : 0)];
        await takeBackReplaced(batch, replies, resultsEntry, listEntry);
      } catch (error) {
        queued = [...batch, ...queued];
        const dropped = queued.length - MAX_QUEUED_RUNS;
        if (dropped > 0) queued.splice(0, dropped);
        options.onError?.(
          new Error(
            `writing ${batch.length} trace run(s) failed, retrying with the next batch${dropped > 0 ? ` (${dropped} dropped)` : ''}: ${(error as Error).message}`,
          ),
        );
      }
    });
    return writing;
  };

  /**
   * For each replacing write whose SET found a value (a rescore), takes back what the replaced
   * passes counted and marks their results in the stream as replaced: `replacedSet` scores the
   * trace with the stream order of the entry that holds the replacing pass's results (`resultsEntry`;
   * without results, anything in the stream up to the trace list's entry of this batch), and
   * results of the trace in older entries are listed no more (see `readResultsPage`).
   */
  const takeBackReplaced = async (
    batch: QueuedWrite[],
    replies: unknown[],
    resultsEntry: unknown,
    listEntry: unknown,
  ): Promise<void> => {
    const found: Array<{
      w: QueuedRun;
      traceId: string;
      parsed: ParsedRun;
    }> = [];
    batch.forEach((w, i) => {
      const old = replies[i];
      if (w.kind !== 'run' || w.append || typeof old !== 'string') return;
      const raw = hasExportLine(old) ? old : `E\n${old}`;
      found.push({ w, traceId: w.traceId, parsed: parseRunValue(w.traceId, raw) });
    });
    if (found.length === 0) return;
    // A layout 2 record's results are read from the stream: only rescores pay for this.
    const previous = await readRunResults(redis, stream, found);
    const marks: Array<string | number> = [];
    found.forEach(({ w }, i) => {
      const record = previous[i]!;
      for (const [minute, field, by] of replacedIncrements(
        record,
        toolIncrements,
        resultIncrements,
      ))
        count(minute, field, by);
      const countedAt = toolsCountedAt(record.results);
      if (countedAt !== undefined)
        options.signatures?.count(storedCallOutcomes(record), countedAt, -1);
      if (record.results.length === 0) return;
      const entry = layout === 2 ? w.placed?.entryId : resultsEntry;
      const mark =
        w.results.length > 0 && typeof entry === 'string'
          ? streamOrder(entry)
          : streamOrder(`${Number(String(listEntry).split('-')[0]) + 1}-0`);
      marks.push(mark, w.traceId);
    });
    // Only rescores pay for this round trip; the write that found them is done either way.
    if (marks.length > 0) await redis.zadd(replacedSet, 'GT', ...marks);
  };

  /**
   * Layout 2: adds the results of `runs` to the stream in one entry (one script call), and notes
   * on each run where its results start, for its record to point at. A run placed by a batch
   * whose other writes then failed is not added again when they are retried.
   */
  const placeResults = async (runs: QueuedRun[]): Promise<void> => {
    if (runs.length === 0) return;
    const lines = runs.flatMap(w => w.results);
    const entryId = await redis.spanscoreAddResults(
      stream,
      streamIndex,
      streamCount,
      String(lines.length),
      lines.join('\n'),
    );
    let line = 0;
    for (const w of runs) {
      w.placed = { entryId, line };
      line += w.results.length;
    }
  };

  const enqueue = (w: QueuedWrite): void => {
    queued.push(w);
    if (queued.length - heldCount >= WRITE_BATCH) void flushWrites();
    else writeTimer ??= setTimeout(() => void flushWrites(), WRITE_DELAY_MS).unref();
  };

  function write(run: TraceRun, how: Pick<RunWrite, 'exportState'>): void {
    const t = now();
    const results = toStoredResults(run);
    // A session's pass is kept under its session's key (see `runRecordKey`).
    const key = runRecordKey(run);
    // Layout 2 keeps a call's arguments and result as values where they fit ('values'): its line
    // copies the JSON text they were parsed from, where layout 1's record holds them as text.
    const record =
      layout === 2
        ? compactRecordLine(
            { ...runRecordPatch(run, t, retention.storeContent, 'values'), receivedAtUnixMs: null },
            key,
          )
        : JSON.stringify({
            ...runRecordPatch(run, t, retention.storeContent),
            receivedAtUnixMs: null,
          });
    const w: QueuedRun = {
      kind: 'run',
      traceId: key,
      record,
      // Added to the stored results by APPEND_RUN, or replacing them by a SET.
      append: addsToStoredResults(run),
      export: hasOutcomes(run)
        ? { state: how.exportState, attempts: 0, lastError: null, updatedAtUnixMs: t }
        : undefined,
      awaitingExport: hasOutcomes(run) && how.exportState === 'pending',
      queuedAtMs: t,
      results: layout === 2 ? passResultLines(results) : results.map(wholeResultLine),
      codes: results.map(resultCode).join(''),
    };
    enqueue(w);
    waitingRuns.set(w.traceId, w);
    for (const r of results) {
      const minute = minuteOf(r.timeUnixMs);
      resultIncrements(r, (field, by) => count(minute, field, by));
    }
    if (run.state === 'not_scored' && run.reason)
      count(minuteOf(t), notScoredField(run.reason, run.testCaseId), 1);
    if (run.session && run.state === 'scored') count(minuteOf(t), SESSIONS_FIELD, 1);
    const toolsAtMs = toolsCountedAt(results) ?? t;
    const toolsAt = minuteOf(toolsAtMs);
    toolIncrements(toolCallFacts(run), (field, by) => count(toolsAt, field, by));
    options.signatures?.count(callOutcomes(run), toolsAtMs);
  }

  return {
    write,
    recordExport(traceId, outcome) {
      const waiting = waitingRuns.get(traceId);
      if (waiting?.export) {
        waiting.export = nextExportStatus(waiting.export, outcome, now());
        waiting.awaitingExport = false;
      }
      // Queued behind the run's own write, so the two reach Redis in order.
      else enqueue({ kind: 'export', traceId, outcome, atMs: now() });
    },
    flush: flushWrites,
  };
}
