import { addsToStoredResults } from '../results/merge-run-results.js';
import { sendBatch, type RedisClient } from './redis-connection.js';
import { RedisMinuteCounters } from './redis-minute-counters.js';
import { newestStreamLines, streamOrder } from './stream-lines.js';
import { withResultsStoreScripts } from './results-store-scripts.js';
import {
  exportLine,
  exportStatusOf,
  hasExportLine,
  parseAnyRun,
  parseRun,
} from './run-record-layout.js';
import { replacedIncrements, toolsCountedAt } from '../results/replaced-pass.js';
import { isSessionRecordKey, resultRecordKey, runRecordKey } from '../results/run-record-key.js';
import type { TraceRun } from '../score/trace-run.js';
import {
  FAILED_FIELD,
  MINUTE_MS,
  minuteOf,
  notScoredField,
  resultIncrements,
  SESSIONS_FIELD,
  summarizeMinutes,
} from '../results/minute-aggregates.js';
import { matchesFilter, type ResultsFilter, type ResultsPage } from '../results/results-query.js';
import { summarizeTools, toolIncrementer } from '../results/tool-aggregates.js';
import {
  matchesTraceFilter,
  traceListEntry,
  type TraceListEntry,
  type TracesFilter,
  type TracesPage,
} from '../results/trace-list.js';
import { toolCallFacts } from '../score/tool-call-facts.js';
import {
  endedRunRecord,
  EXPIRED_REASON,
  failedRunRecord,
  nextExportStatus,
  type ResultsRetention,
  type ResultsStore,
} from '../results/results-store.js';
import {
  type ExportOutcome,
  type ExportStatus,
  type RunRecord,
  type StoredResult,
} from '../results/stored-result.js';
import {
  hasOutcomes,
  runRecordPatch,
  toStoredResults,
  type RunWrite,
} from '../results/to-stored-results.js';

/** Trace-list lines whose run records are read in one round trip, and read at most per page. */
const LIST_CHUNK = 100;
const MAX_LIST_SCAN = 5_000;
/**
 * At most this many results are read for one page: a rare filter answers with fewer rows (even
 * none), and a `nextCursor` to go on scanning from where it stopped.
 */
const SCAN_LIMIT = 20_000;
/** Results checked against the rescored traces (one ZMSCORE) at a time, reading a page. */
const REPLACED_CHECK_CHUNK = 200;
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
  results: string[];
}

/**
 * The BullMQ driver's results store, in Redis, bounded and expiring:
 * - `<prefix>:results:{r}:stream`: a stream with one entry per write (the results of up to 256
 *   trace runs, as JSON lines), newest last; a result's id is its entry's id and its place in it
 *   (`<entry id>.<i>`), and a page cursor. `…:index` lists each entry with its result count and
 *   `…:count` sums them, so the stream is trimmed to `maxResults` results (and to `retentionMs`)
 *   once a second without reading entries.
 * - `<prefix>:results:{r}:m:<minute>`: a hash of per-minute counters per scorer, test case or rule
 *   and service (see `minute-aggregates.ts`), one field per writing process (`@<id>`: its counts
 *   of the minute as JSON, rewritten with each flush), expiring after `retentionMs`.
 * - `<prefix>:run:{<traceId>}`: the run's export line, its record's JSON line and one line per
 *   result, expiring after `retentionMs`.
 * - `<prefix>:results:{r}:replaced`: a sorted set of the traces a later pass replaced (a rescore
 *   after late spans), each scored with the stream order (`streamOrder`) of the entry its newest
 *   results start in; results of the trace in older entries are not listed, and the minute
 *   counters take back what the replaced pass counted (the run key's SET returns the value it
 *   replaced). Trimmed by age with the stream.
 *
 * A trace run costs one SET: its record, with the export outcome when that came before the
 * write (nearly always: a run waits up to 2 s for its export's outcome), and its share of one
 * script call per batch for the stream; an export outcome that came later rewrites the export
 * line (one script call); a rescore adds one ZADD per batch. Per-minute counters cost two commands a second per process whatever
 * the traffic. Reads in this process see its own writes; another process may lag by up to a
 * second, and a crashed worker loses at most its last unwritten batch of results and run records
 * and its last second of counters.
 */
export function createRedisResultsStore(
  redis: RedisClient,
  prefix: string,
  retention: ResultsRetention,
  options: {
    now?: () => number;
    onError?: (error: Error) => void;
    /** Results read at most for one results page (tests use a small one). @defaultValue 20,000 */
    scanLimit?: number;
  } = {},
): ResultsStore {
  const now = options.now ?? Date.now;
  const scanLimit = options.scanLimit ?? SCAN_LIMIT;
  const stream = `${prefix}:results:{r}:stream`;
  const streamIndex = `${prefix}:results:{r}:index`;
  const streamCount = `${prefix}:results:{r}:count`;
  // The trace list: one line per pass written (`<trace id> <record time>`), capped at `maxRuns`.
  const listStream = `${prefix}:results:{r}:traces`;
  const listIndex = `${prefix}:results:{r}:traces:index`;
  const listCount = `${prefix}:results:{r}:traces:count`;
  const minuteKey = (minute: number): string => `${prefix}:results:{r}:m:${minute}`;
  const runKey = (traceId: string): string => `${prefix}:run:{${traceId}}`;
  const legacyExportKey = (traceId: string): string => `${prefix}:run:{${traceId}}:export`;
  // Traces rescored, each scored with the time its replacing pass's results start.
  const replacedSet = `${prefix}:results:{r}:replaced`;
  const ttl = retention.retentionMs;
  const commands = withResultsStoreScripts(redis);
  let lastTrimMs = 0;
  const toolIncrements = toolIncrementer(retention);

  const counters = new RedisMinuteCounters(redis, minuteKey, ttl, now, options.onError);
  const count = (minute: number, field: string, by: number): void =>
    counters.count(minute, field, by);

  // Trace runs are written in batches, off the job's path: the sink encodes a run (each result
  // once, shared by the stream and the run record) and returns; every WRITE_DELAY_MS, or at
  // WRITE_BATCH runs, one pipeline writes them. An export outcome for a run still waiting is
  // folded into its write. A failed write keeps its runs for the next one, up to MAX_QUEUED_RUNS
  // (the oldest are then dropped, and logged).
  let queued: QueuedWrite[] = [];
  /** The latest queued run write of each trace, while it waits. */
  const waitingRuns = new Map<string, QueuedRun>();
  /** Writes held back by the last flush (they wait for their export's outcome). */
  let heldCount = 0;
  let writeTimer: NodeJS.Timeout | undefined;
  let writing: Promise<void> = Promise.resolve();
  /**
   * Writes what is queued: all of it when `force` (a read of this process's own writes), else
   * all but the runs still waiting for their export's first outcome (for at most HOLD_MS), and
   * anything queued after them for the same trace, which must reach Redis after them.
   */
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
      const results = batch.flatMap((w, i) =>
        w.kind === 'run' && i >= (replacedAt.get(w.traceId) ?? 0) ? w.results : [],
      );
      const listed = batch.flatMap(w => (w.kind === 'run' ? [`${w.traceId} ${w.queuedAtMs}`] : []));
      try {
        // One batch (`sendBatch`): a run record's key is on its trace id's slot, the stream's
        // keys on `{r}`.
        const replies = await sendBatch<typeof commands>(redis, target => [
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
            // A replacing write gets the value it replaced back (SET … GET), to take back what
            // that pass counted: a rescore is known from the reply, in the same command.
            return w.append
              ? target.spanscoreAppendRun(
                  runKey(w.traceId),
                  w.export ? line : '',
                  w.record,
                  String(ttl),
                  ...w.results,
                )
              : target.set(
                  runKey(w.traceId),
                  [line, w.record, ...w.results].join('\n'),
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
   * results of the trace in older entries are listed no more (see `withoutReplaced`).
   */
  const takeBackReplaced = async (
    batch: QueuedWrite[],
    replies: unknown[],
    resultsEntry: unknown,
    listEntry: unknown,
  ): Promise<void> => {
    const marks: Array<string | number> = [];
    batch.forEach((w, i) => {
      const old = replies[i];
      if (w.kind !== 'run' || w.append || typeof old !== 'string') return;
      const previous = parseAnyRun(w.traceId, old);
      for (const [minute, field, by] of replacedIncrements(previous, toolIncrements))
        count(minute, field, by);
      if (previous.results.length === 0) return;
      const mark =
        w.results.length > 0 && typeof resultsEntry === 'string'
          ? streamOrder(resultsEntry)
          : streamOrder(`${Number(String(listEntry).split('-')[0]) + 1}-0`);
      marks.push(mark, w.traceId);
    });
    // Only rescores pay for this round trip; the write that found them is done either way.
    if (marks.length > 0) await redis.zadd(replacedSet, 'GT', ...marks);
  };

  const enqueue = (w: QueuedWrite): void => {
    queued.push(w);
    if (queued.length - heldCount >= WRITE_BATCH) void flushWrites();
    else writeTimer ??= setTimeout(() => void flushWrites(), WRITE_DELAY_MS).unref();
  };

  function write(run: TraceRun, how: Pick<RunWrite, 'exportState'>): void {
    const t = now();
    const results = toStoredResults(run);
    const w: QueuedRun = {
      kind: 'run',
      // A session's pass is kept under its session's key (see `runRecordKey`).
      traceId: runRecordKey(run),
      record: JSON.stringify({
        ...runRecordPatch(run, t, retention.storeContent),
        receivedAtUnixMs: null,
      }),
      // Added to the stored results by APPEND_RUN, or replacing them by a SET.
      append: addsToStoredResults(run),
      export: hasOutcomes(run)
        ? { state: how.exportState, attempts: 0, lastError: null, updatedAtUnixMs: t }
        : undefined,
      awaitingExport: hasOutcomes(run) && how.exportState === 'pending',
      queuedAtMs: t,
      results: results.map(r => JSON.stringify(r)),
    };
    enqueue(w);
    waitingRuns.set(w.traceId, w);
    for (const r of results)
      for (const [field, by] of resultIncrements(r)) count(minuteOf(r.timeUnixMs), field, by);
    if (run.state === 'not_scored' && run.reason) count(minuteOf(t), notScoredField(run.reason), 1);
    if (run.session && run.state === 'scored') count(minuteOf(t), SESSIONS_FIELD, 1);
    const toolsAt = minuteOf(toolsCountedAt(results) ?? t);
    for (const [field, by] of toolIncrements(toolCallFacts(run))) count(toolsAt, field, by);
  }

  const flushAll = async (): Promise<void> => {
    await flushWrites(true);
    await counters.flush();
  };

  return {
    name: 'redis',
    write,
    close: flushAll,
    recordExport(traceId, outcome) {
      const waiting = waitingRuns.get(traceId);
      if (waiting?.export) {
        waiting.export = nextExportStatus(waiting.export, outcome, now());
        waiting.awaitingExport = false;
      }
      // Queued behind the run's own write, so the two reach Redis in order.
      else enqueue({ kind: 'export', traceId, outcome, atMs: now() });
      return Promise.resolve();
    },
    async recordFailure(traceId, phase, error) {
      const t = now();
      count(minuteOf(t), FAILED_FIELD, 1);
      await flushWrites(true);
      const previous = await readRun(traceId);
      // The failure replaces the record's line and keeps the results and export written before it.
      await commands.spanscoreAppendRun(
        runKey(traceId),
        '',
        JSON.stringify(failedRunRecord(traceId, phase, error, previous, t)),
        String(ttl),
      );
      await listed(traceId, t);
    },
    async recordExpired(traceId, reason) {
      const t = now();
      count(minuteOf(t), notScoredField(EXPIRED_REASON), 1);
      await flushWrites(true);
      const previous = await readRun(traceId);
      await commands.spanscoreAppendRun(
        runKey(traceId),
        '',
        JSON.stringify(endedRunRecord(traceId, 'expired', reason, previous, t)),
        String(ttl),
      );
      await listed(traceId, t);
    },
    async summary(fromUnixMs, toUnixMs, filter = {}) {
      return summarizeMinutes(
        await readMinutes(fromUnixMs, toUnixMs),
        fromUnixMs,
        toUnixMs,
        filter,
      );
    },
    async tools(fromUnixMs, toUnixMs, filter = {}) {
      return summarizeTools(await readMinutes(fromUnixMs, toUnixMs), fromUnixMs, toUnixMs, filter);
    },
    async results(filter: ResultsFilter, limit: number, cursor?: string): Promise<ResultsPage> {
      await flushWrites(true);
      const oldest = Math.max(filter.fromUnixMs ?? 0, now() - ttl);
      const out: StoredResult[] = [];
      // Where the scan stopped with results left to read: the cursor of a page the scan limit cut.
      let stoppedAt: string | null = null;
      let scanned = 0;
      const lines = newestStreamLines(redis, stream, {
        cursor,
        toUnixMs: filter.toUnixMs,
        oldestUnixMs: oldest,
      });
      // Matching results wait in `candidates` until a chunk of them is checked for rescores.
      let candidates: StoredResult[] = [];
      const settle = async (): Promise<void> => {
        out.push(...(await withoutReplaced(candidates)));
        candidates = [];
      };
      for await (const { entryId, index, line } of lines) {
        if (out.length + candidates.length > limit) await settle();
        if (out.length > limit) break;
        if (scanned >= scanLimit) {
          stoppedAt = `${entryId}.${index + 1}`;
          break;
        }
        scanned++;
        const r = { id: `${entryId}.${index}`, ...(JSON.parse(line) as Omit<StoredResult, 'id'>) };
        if (matchesFilter(r, filter)) candidates.push(r);
        if (candidates.length >= REPLACED_CHECK_CHUNK) await settle();
      }
      if (candidates.length > 0) await settle();
      const page = out.slice(0, limit);
      return {
        results: page,
        nextCursor: out.length > limit ? page.at(-1)!.id : stoppedAt,
      };
    },
    async run(traceId) {
      await flushWrites(true);
      return readRun(traceId);
    },
    traces: listTraces,
  };

  /**
   * `results` without those a later pass of their trace replaced: in a stream entry older than
   * the one `replacedSet` holds for the trace (one ZMSCORE for the chunk's traces).
   */
  async function withoutReplaced(results: StoredResult[]): Promise<StoredResult[]> {
    if (results.length === 0) return results;
    const keys = [...new Set(results.map(resultRecordKey))];
    const scores = await redis.zmscore(replacedSet, ...keys);
    const since = new Map<string, number>();
    keys.forEach((key, i) => {
      if (scores[i] != null) since.set(key, Number(scores[i]));
    });
    if (since.size === 0) return results;
    return results.filter(
      r =>
        streamOrder(r.id.slice(0, r.id.lastIndexOf('.'))) >=
        (since.get(resultRecordKey(r)) ?? -Infinity),
    );
  }

  /** Lists a trace whose record an ended run (failed, expired) rewrote, in the trace list. */
  async function listed(traceId: string, t: number): Promise<void> {
    await commands.spanscoreAddResults(listStream, listIndex, listCount, '1', `${traceId} ${t}`);
  }

  /**
   * The trace list, newest first: each line's run record read (pipelined, a chunk at a time) and
   * kept when the line is its latest (the record's time is the line's: a trace written again is
   * listed where it was written last) and it passes `filter`. Scans at most `scanLimit` lines;
   * the cursor (`<entry id>.<line>`) continues where a page ended or the scan stopped.
   */
  async function listTraces(
    filter: TracesFilter,
    limit: number,
    cursor: string | undefined,
  ): Promise<TracesPage> {
    await flushWrites(true);
    const oldest = Math.max(filter.fromUnixMs ?? 0, now() - ttl);
    const out: TraceListEntry[] = [];
    let scanned = 0;
    let stoppedAt: string | null = null;
    let pending: Array<{ traceId: string; time: number; position: string }> = [];
    const check = async (): Promise<void> => {
      const records = await sendBatch<RedisClient>(redis, target =>
        pending.map(p => target.get(runKey(p.traceId))),
      );
      pending.forEach((p, i) => {
        const raw = records[i];
        if (typeof raw !== 'string' || !hasExportLine(raw) || out.length > limit) return;
        if (isSessionRecordKey(p.traceId) !== (filter.sessions === true)) return;
        const entry = traceListEntry(parseRun(p.traceId, raw));
        if (entry.timeUnixMs === p.time && matchesTraceFilter(entry, filter)) {
          out.push(entry);
          if (out.length > limit) stoppedAt = p.position;
        }
      });
      pending = [];
    };
    const lines = newestStreamLines(redis, listStream, {
      cursor,
      toUnixMs: filter.toUnixMs,
      oldestUnixMs: oldest,
    });
    for await (const { entryId, index, line } of lines) {
      if (scanned >= MAX_LIST_SCAN) {
        stoppedAt = `${entryId}.${index + 1}`;
        break;
      }
      scanned++;
      const [traceId, time] = line.split(' ');
      pending.push({ traceId: traceId!, time: Number(time), position: `${entryId}.${index + 1}` });
      if (pending.length >= LIST_CHUNK) {
        await check();
        if (out.length > limit) break;
      }
    }
    if (out.length <= limit && pending.length) await check();
    return { traces: out.slice(0, limit), nextCursor: stoppedAt };
  }

  /** The minutes of `[fromUnixMs, toUnixMs]` within the retention, every writer's counts summed. */
  async function readMinutes(
    fromUnixMs: number,
    toUnixMs: number,
  ): Promise<Array<{ minuteUnixMs: number; fields: Map<string, number> }>> {
    await flushAll();
    const from = Math.max(minuteOf(fromUnixMs), minuteOf(now() - ttl));
    const wanted: number[] = [];
    for (let m = from; m <= toUnixMs; m += MINUTE_MS) wanted.push(m);
    return counters.read(wanted);
  }

  /** A run record, with the export hash of the layout before when its value has no export line. */
  async function readRun(traceId: string): Promise<RunRecord | undefined> {
    const raw = await redis.get(runKey(traceId));
    if (typeof raw !== 'string') return undefined;
    const record = parseAnyRun(traceId, raw);
    if (hasExportLine(raw)) return record;
    return { ...record, export: exportStatusOf(await redis.hgetall(legacyExportKey(traceId))) };
  }
}
