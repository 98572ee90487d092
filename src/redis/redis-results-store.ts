import { sendBatch, type RedisClient } from './redis-connection.js';
import type { TraceRun } from '../score/trace-run.js';
import {
  FAILED_FIELD,
  MINUTE_MS,
  minuteOf,
  notScoredField,
  resultIncrements,
  summarizeMinutes,
} from '../results/minute-aggregates.js';
import { matchesFilter, type ResultsFilter, type ResultsPage } from '../results/results-query.js';
import {
  failedRunRecord,
  type ResultsRetention,
  type ResultsStore,
} from '../results/results-store.js';
import {
  MAX_RESULTS_PER_RUN,
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

/** Stream entries read per XREVRANGE while filtering a results page. */
const SCAN_BATCH = 500;
/**
 * At most this many entries are read for one page: a rare filter answers with fewer rows (even
 * none), and a `nextCursor` to go on scanning from where it stopped.
 */
const SCAN_LIMIT = 20_000;
/** How long per-minute counters are summed in the process before they are written. */
const FLUSH_MS = 1000;
/** Trace runs are written this long after the first one waiting, or at this many. */
const WRITE_DELAY_MS = 50;
const WRITE_BATCH = 256;
/** Runs kept for the next write while Redis refuses them; beyond, the oldest are dropped. */
const MAX_QUEUED_RUNS = 10_000;

// KEYS: the run key, its export key. ARGV: record JSON, ttl ms, append (1: keep the results
// there, the judge pass adds its own), the export state its results start in ('' for a pass with
// no results: the export key is left as it is), now ms, then one JSON line per result. The value
// is the record's line, then one line per result: one SET, whatever the number of results.
const WRITE_RUN = `
if ARGV[4] ~= '' then
  redis.call('HSET', KEYS[2], 'state', ARGV[4], 'attempts', 0, 'error', '', 'at', ARGV[5])
  redis.call('PEXPIRE', KEYS[2], ARGV[2])
end
local tail = ''
if ARGV[3] == '1' then
  local old = redis.call('GET', KEYS[1])
  if old then
    local nl = string.find(old, '\\n', 1, true)
    if nl then tail = string.sub(old, nl) end
  end
end
for i = 6, #ARGV do tail = tail .. '\\n' .. ARGV[i] end
redis.call('SET', KEYS[1], ARGV[1] .. tail, 'PX', ARGV[2])
return 1
`;

// KEYS: a run's export key. ARGV: state, error, now ms, ttl ms, attempts to add. Only for a run
// whose results were written (a pass with no record has no export to report).
const RECORD_EXPORT = `
redis.call('HINCRBY', KEYS[1], 'attempts', ARGV[5])
redis.call('HSET', KEYS[1], 'state', ARGV[1], 'error', ARGV[2], 'at', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 1
`;

interface RunRecordCommands {
  spanscoreWriteRun(runKey: string, exportKey: string, ...args: string[]): Promise<number>;
  spanscoreRecordExport(exportKey: string, ...args: string[]): Promise<number>;
}

/** A write the store holds until its next batch: a pass of the loop, or an export outcome. */
type QueuedWrite =
  | {
      kind: 'run';
      traceId: string;
      record: string;
      append: boolean;
      exportState: string;
      atMs: number;
      results: string[];
    }
  | { kind: 'export'; traceId: string; outcome: ExportOutcome; atMs: number };

/**
 * The BullMQ driver's results store, in Redis, bounded and expiring:
 * - `<prefix>:results:{r}:stream`: a stream of results (`XADD … MAXLEN ~ maxResults`, trimmed to
 *   `retentionMs` by `MINID` once a minute); stream ids are the result ids and page cursors, and
 *   their time part lets a time-filtered page read only its range.
 * - `<prefix>:results:{r}:m:<minute>`: a hash of per-minute counters per scorer, test case or rule
 *   and service (see `minute-aggregates.ts`), expiring after `retentionMs`.
 * - `<prefix>:run:{<traceId>}`: the run record's JSON line and one line per result, expiring
 *   after `retentionMs` (one SET per trace run; the judge pass appends its results).
 * - `<prefix>:run:{<traceId>}:export`: a hash of the run's export state (state, attempts, last
 *   error, time), set with the run record and updated by each export attempt.
 *
 * The results keys share the hash tag `{r}` and a run's keys its trace id's, so a Redis Cluster
 * can hold them. A trace run costs one XADD per result and one script call for its run record,
 * written in batches off the job's path (every 50 ms or 256 runs); the per-minute counters are
 * summed in the process and written once a second. Reads in this process see its own writes;
 * another process may lag by up to that second, and a crashed worker loses at most its last
 * unwritten batch of results and run records (written before the trace's export, so such a
 * trace is scored again by the job BullMQ recovers, and its results written then).
 */
export function createRedisResultsStore(
  redis: RedisClient,
  prefix: string,
  retention: ResultsRetention,
  options: {
    now?: () => number;
    onError?: (error: Error) => void;
    /** Entries read at most for one results page (tests use a small one). @defaultValue 20,000 */
    scanLimit?: number;
  } = {},
): ResultsStore {
  const now = options.now ?? Date.now;
  const scanLimit = options.scanLimit ?? SCAN_LIMIT;
  const stream = `${prefix}:results:{r}:stream`;
  const minuteKey = (minute: number): string => `${prefix}:results:{r}:m:${minute}`;
  const runKey = (traceId: string): string => `${prefix}:run:{${traceId}}`;
  const exportKey = (traceId: string): string => `${prefix}:run:{${traceId}}:export`;
  const ttl = retention.retentionMs;
  const commands = redis as RedisClient & RunRecordCommands;
  commands.defineCommand('spanscoreWriteRun', { numberOfKeys: 2, lua: WRITE_RUN });
  commands.defineCommand('spanscoreRecordExport', { numberOfKeys: 1, lua: RECORD_EXPORT });
  let lastTrimMs = 0;

  // Per-minute counters are summed here and written once a second (one MULTI whatever the
  // traffic), not per result; a flush that fails is merged back and retried with the next one.
  let pending = new Map<number, Map<string, number>>();
  let flushTimer: NodeJS.Timeout | undefined;
  let flushing: Promise<void> = Promise.resolve();
  const count = (minute: number, field: string, by: number): void => {
    let fields = pending.get(minute);
    if (!fields) pending.set(minute, (fields = new Map<string, number>()));
    fields.set(field, (fields.get(field) ?? 0) + by);
    flushTimer ??= setTimeout(() => void flush(), FLUSH_MS).unref();
  };
  const flush = (): Promise<void> => {
    clearTimeout(flushTimer);
    flushTimer = undefined;
    const batch = pending;
    pending = new Map();
    if (batch.size === 0) return flushing;
    flushing = flushing.then(async () => {
      const tx = redis.multi();
      for (const [minute, fields] of batch) {
        for (const [field, by] of fields) tx.hincrbyfloat(minuteKey(minute), field, by);
        tx.pexpire(minuteKey(minute), ttl + MINUTE_MS);
      }
      try {
        await tx.exec();
      } catch (error) {
        for (const [minute, fields] of batch)
          for (const [field, by] of fields) count(minute, field, by);
        options.onError?.(error as Error);
      }
    });
    return flushing;
  };

  const writeRun = (record: Omit<RunRecord, 'results'>, append: boolean): Promise<unknown> =>
    commands.spanscoreWriteRun(
      runKey(record.traceId),
      exportKey(record.traceId),
      JSON.stringify(record),
      String(ttl),
      append ? '1' : '0',
      '',
      String(now()),
    );

  // Trace runs are written in batches, off the job's path: the sink encodes a run (each result
  // once, shared by the stream and the run record) and returns; every WRITE_DELAY_MS, or at
  // WRITE_BATCH runs, one pipeline writes them. A failed write keeps its runs for the next one,
  // up to MAX_QUEUED_RUNS (the oldest are then dropped, and logged).
  let queued: QueuedWrite[] = [];
  let writeTimer: NodeJS.Timeout | undefined;
  let writing: Promise<void> = Promise.resolve();
  const flushWrites = (): Promise<void> => {
    clearTimeout(writeTimer);
    writeTimer = undefined;
    const batch = queued;
    queued = [];
    if (batch.length === 0) return writing;
    writing = writing.then(async () => {
      // One batch (`sendBatch`): a run record's key is on its trace id's slot, not the stream's.
      const t = now();
      const trim = t - lastTrimMs > MINUTE_MS;
      if (trim) lastTrimMs = t;
      try {
        await sendBatch<typeof commands>(redis, target => [
          ...batch.flatMap(w =>
            w.kind === 'export'
              ? [
                  target.spanscoreRecordExport(
                    exportKey(w.traceId),
                    w.outcome.state,
                    w.outcome.state === 'exported' ? '' : w.outcome.error,
                    String(w.atMs),
                    String(ttl),
                    w.outcome.state === 'failed' ? '0' : '1',
                  ),
                ]
              : [
                  ...w.results.map(r =>
                    target.xadd(stream, 'MAXLEN', '~', retention.maxResults, '*', 'r', r),
                  ),
                  target.spanscoreWriteRun(
                    runKey(w.traceId),
                    exportKey(w.traceId),
                    w.record,
                    String(ttl),
                    w.append ? '1' : '0',
                    w.exportState,
                    String(w.atMs),
                    ...w.results,
                  ),
                ],
          ),
          ...(trim ? [target.xtrim(stream, 'MINID', '~', t - ttl)] : []),
        ]);
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

  const enqueue = (w: QueuedWrite): void => {
    queued.push(w);
    if (queued.length >= WRITE_BATCH) void flushWrites();
    else writeTimer ??= setTimeout(() => void flushWrites(), WRITE_DELAY_MS).unref();
  };

  function write(run: TraceRun, how: Pick<RunWrite, 'exportState'>): void {
    const t = now();
    const results = toStoredResults(run);
    enqueue({
      kind: 'run',
      traceId: run.traceId,
      record: JSON.stringify({
        ...runRecordPatch(run, t, retention.storeContent),
        receivedAtUnixMs: null,
      }),
      // The judge pass adds its results to the first pass's; any other pass replaces them.
      append: run.phase === 'llm',
      exportState: hasOutcomes(run) ? how.exportState : '',
      atMs: t,
      results: results.map(r => JSON.stringify(r)),
    });
    for (const r of results)
      for (const [field, by] of resultIncrements(r)) count(minuteOf(r.timeUnixMs), field, by);
    if (run.state === 'not_scored' && run.reason) count(minuteOf(t), notScoredField(run.reason), 1);
  }

  const flushAll = async (): Promise<void> => {
    await flushWrites();
    await flush();
  };

  return {
    name: 'redis',
    write,
    close: flushAll,
    recordExport(traceId, outcome) {
      // Queued behind the run's own write, so the two reach Redis in order.
      enqueue({ kind: 'export', traceId, outcome, atMs: now() });
      return Promise.resolve();
    },
    async recordFailure(traceId, phase, error) {
      const t = now();
      count(minuteOf(t), FAILED_FIELD, 1);
      await flushWrites();
      const previous = await readRun(traceId);
      // The failure replaces the record's line and keeps the results written before it.
      await writeRun(failedRunRecord(traceId, phase, error, previous, t), true);
    },
    async summary(fromUnixMs, toUnixMs, filter = {}) {
      await flushAll();
      const from = Math.max(minuteOf(fromUnixMs), minuteOf(now() - ttl));
      const minutes: number[] = [];
      for (let m = from; m <= toUnixMs; m += MINUTE_MS) minutes.push(m);
      const pipeline = redis.pipeline();
      for (const m of minutes) pipeline.hgetall(minuteKey(m));
      const replies = (await pipeline.exec()) ?? [];
      const picked = minutes.map((minuteUnixMs, i) => {
        const [error, hash] = replies[i] ?? [];
        if (error) throw error;
        const fields = new Map<string, number>();
        for (const [k, v] of Object.entries((hash ?? {}) as Record<string, string>))
          fields.set(k, Number(v));
        return { minuteUnixMs, fields };
      });
      return summarizeMinutes(picked, fromUnixMs, toUnixMs, filter);
    },
    async results(filter: ResultsFilter, limit: number, cursor?: string): Promise<ResultsPage> {
      await flushWrites();
      const oldest = Math.max(filter.fromUnixMs ?? 0, now() - ttl);
      let max = cursor ? `(${cursor}` : filter.toUnixMs !== undefined ? `${filter.toUnixMs}` : '+';
      const out: StoredResult[] = [];
      // Where the scan stopped with entries left to read: the cursor of a page the scan limit cut.
      let stoppedAt: string | null = null;
      for (let scanned = 0; out.length <= limit;) {
        if (scanned >= scanLimit) {
          stoppedAt = max.slice(1);
          break;
        }
        const batch = Math.min(SCAN_BATCH, scanLimit - scanned);
        const entries = await redis.xrevrange(stream, max, `${oldest}`, 'COUNT', batch);
        for (const [id, fields] of entries) {
          const r = { id, ...(JSON.parse(fields[1]!) as Omit<StoredResult, 'id'>) };
          if (matchesFilter(r, filter)) out.push(r);
          if (out.length > limit) break;
        }
        scanned += entries.length;
        if (entries.length < batch) break;
        max = `(${entries.at(-1)![0]}`;
      }
      const page = out.slice(0, limit);
      return {
        results: page,
        nextCursor: out.length > limit ? page.at(-1)!.id : stoppedAt,
      };
    },
    async run(traceId) {
      await flushWrites();
      return readRun(traceId);
    },
  };

  /** A run record and its export state: two keys on the trace's slot, in one round trip. */
  async function readRun(traceId: string): Promise<RunRecord | undefined> {
    const replies = await redis.multi().get(runKey(traceId)).hgetall(exportKey(traceId)).exec();
    const [[runError, raw] = [null, null], [exportError, hash] = [null, {}]] = replies ?? [];
    if (runError) throw runError;
    if (exportError) throw exportError;
    if (typeof raw !== 'string') return undefined;
    return { ...parseRun(traceId, raw), export: exportStatusOf(hash as Record<string, string>) };
  }
}

/** The export hash as a status; `null` when the run has none (nothing to export). */
function exportStatusOf(hash: Record<string, string>): ExportStatus | null {
  if (!hash.state) return null;
  return {
    state: hash.state as ExportStatus['state'],
    attempts: Number(hash.attempts ?? 0),
    lastError: hash.error || null,
    updatedAtUnixMs: Number(hash.at ?? 0),
  };
}

/** A run key's value: the record's JSON line, then one line per result (the newest kept). */
function parseRun(traceId: string, raw: string): RunRecord {
  const [record, ...results] = raw.split('\n');
  const fields = JSON.parse(record!) as Omit<RunRecord, 'results'>;
  return {
    ...fields,
    // Records written before tool calls were kept have neither field.
    toolCalls: fields.toolCalls ?? [],
    contentKept: fields.contentKept ?? true,
    results: results.slice(-MAX_RESULTS_PER_RUN).map((r, i): StoredResult => ({
      id: `${traceId}:${i}`,
      ...(JSON.parse(r) as Omit<StoredResult, 'id'>),
    })),
  };
}
