import { randomBytes } from 'node:crypto';
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

/** Trace-list lines whose run records are read in one round trip, and read at most per page. */
const LIST_CHUNK = 100;
const MAX_LIST_SCAN = 5_000;
/** Stream entries read per XREVRANGE while filtering a results page (each holds a write's results). */
const SCAN_BATCH = 20;
/**
 * At most this many results are read for one page: a rare filter answers with fewer rows (even
 * none), and a `nextCursor` to go on scanning from where it stopped.
 */
const SCAN_LIMIT = 20_000;
/** How often this process writes its per-minute counters. */
const FLUSH_MS = 1000;
/** A minute's counters stay in the process this long after it ended, then they are final. */
const KEEP_MINUTES_MS = 10 * 60_000;
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
/**
 * How far past a page's `toUnixMs` the stream is read: entries are written up to a batch delay
 * after their results were scored, later after Redis refused a write.
 */
const WRITE_SLACK_MS = 60_000;

// A run key's value: its export line, its record's JSON line, then one JSON line per result.
// The export line is `E` alone (nothing exported for this pass), or
// `E<state>\t<attempts>\t<updated at ms>\t<last error as a JSON string>`. Values written before
// this layout start with the record's line, their export state in the hash `<run key>:export`.

// KEYS: the run key. ARGV: export line ('' keeps the one there), record JSON, ttl ms, then one
// JSON line per result. The judge pass's write: it keeps the results already there.
const APPEND_RUN = `
local old = redis.call('GET', KEYS[1])
local exportLine, tail = 'E', ''
if old then
  local a = string.find(old, '\\n', 1, true)
  if string.sub(old, 1, 1) == 'E' and a then
    exportLine = string.sub(old, 1, a - 1)
    local b = string.find(old, '\\n', a + 1, true)
    if b then tail = string.sub(old, b) end
  elseif a then
    tail = string.sub(old, a)
  end
end
if ARGV[1] ~= '' then exportLine = ARGV[1] end
for i = 4, #ARGV do tail = tail .. '\\n' .. ARGV[i] end
redis.call('SET', KEYS[1], exportLine .. '\\n' .. ARGV[2] .. tail, 'PX', ARGV[3])
return 1
`;

// KEYS: the run key. ARGV: state, now ms, last error (a JSON string), attempts to add.
// An export outcome that came after its run was written (most are folded into that write): the
// export line is rewritten in place, the TTL kept. A run whose key is gone is left so.
const RECORD_EXPORT = `
local old = redis.call('GET', KEYS[1])
if not old or string.sub(old, 1, 1) ~= 'E' then return 0 end
local a = string.find(old, '\\n', 1, true)
if not a then return 0 end
local attempts = tonumber(string.match(string.sub(old, 1, a - 1), '^E[^\\t]*\\t(%d+)\\t') or '0')
local line = 'E' .. ARGV[1] .. '\\t' .. (attempts + tonumber(ARGV[4])) .. '\\t' .. ARGV[2] .. '\\t' .. ARGV[3]
redis.call('SET', KEYS[1], line .. string.sub(old, a), 'KEEPTTL')
return 1
`;

// KEYS: the stream, its index (a list of "<entry id> <results>"), its results count. ARGV: the
// entry's result count, its results (JSON lines). One entry per write of many trace runs; the
// index lets the trim count results without reading entries.
const ADD_RESULTS = `
local id = redis.call('XADD', KEYS[1], '*', 'n', ARGV[1], 'r', ARGV[2])
redis.call('RPUSH', KEYS[2], id .. ' ' .. ARGV[1])
redis.call('INCRBY', KEYS[3], ARGV[1])
return id
`;

// KEYS: the stream, its index, its results count. ARGV: results kept at least, the oldest time
// kept (ms), index entries looked at most. Drops the oldest entries while those left hold that
// many results, and any older than the retention. Returns the results dropped.
const TRIM_RESULTS = `
local left = tonumber(redis.call('GET', KEYS[3]) or '0')
local items = redis.call('LRANGE', KEYS[2], 0, tonumber(ARGV[3]) - 1)
local dropped, last, k = 0, nil, 0
for i, item in ipairs(items) do
  local id, n = string.match(item, '^(%S+) (%d+)$')
  n = tonumber(n)
  local ms = tonumber(string.match(id, '^(%d+)'))
  if ms >= tonumber(ARGV[2]) and left - n < tonumber(ARGV[1]) then break end
  left = left - n
  dropped = dropped + n
  last = id
  k = i
end
if k == 0 then return 0 end
local ms, seq = string.match(last, '^(%d+)-(%d+)$')
redis.call('XTRIM', KEYS[1], 'MINID', ms .. '-' .. (tonumber(seq) + 1))
redis.call('LTRIM', KEYS[2], k, -1)
if redis.call('DECRBY', KEYS[3], dropped) < 0 then redis.call('SET', KEYS[3], 0) end
return dropped
`;

interface RunRecordCommands {
  spanscoreAppendRun(runKey: string, ...args: string[]): Promise<number>;
  spanscoreRecordExport(runKey: string, ...args: string[]): Promise<number>;
  spanscoreAddResults(
    stream: string,
    index: string,
    count: string,
    ...args: string[]
  ): Promise<string>;
  spanscoreTrimResults(
    stream: string,
    index: string,
    count: string,
    ...args: string[]
  ): Promise<number>;
}

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
 *
 * A trace run costs one SET: its record, with the export outcome when that came before the
 * write (nearly always: a run waits up to 2 s for its export's outcome), and its share of one
 * script call per batch for the stream; an export outcome that came later rewrites the export
 * line (one script call). Per-minute counters cost two commands a second per process whatever
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
  const ttl = retention.retentionMs;
  const commands = redis as RedisClient & RunRecordCommands;
  commands.defineCommand('spanscoreAppendRun', { numberOfKeys: 1, lua: APPEND_RUN });
  commands.defineCommand('spanscoreRecordExport', { numberOfKeys: 1, lua: RECORD_EXPORT });
  commands.defineCommand('spanscoreAddResults', { numberOfKeys: 3, lua: ADD_RESULTS });
  commands.defineCommand('spanscoreTrimResults', { numberOfKeys: 3, lua: TRIM_RESULTS });
  let lastTrimMs = 0;
  const toolIncrements = toolIncrementer(retention);

  // Per-minute counters: this process's counts of each recent minute, summed here; each flush
  // (once a second) rewrites the minutes that changed, one hash field per process. A minute is
  // kept here until KEEP_MINUTES_MS after it ended; a count for it after that goes to a new field.
  const writer = `@${randomBytes(6).toString('hex')}`;
  let generation = 0;
  const minutes = new Map<number, { field: string; counts: Map<string, number>; dirty: boolean }>();
  let flushTimer: NodeJS.Timeout | undefined;
  let flushing: Promise<void> = Promise.resolve();
  const count = (minute: number, field: string, by: number): void => {
    let m = minutes.get(minute);
    if (!m) {
      // A minute this process let go of (KEEP_MINUTES_MS) and counts again: a field of its own,
      // not to overwrite what it wrote before.
      const recent = minute >= now() - KEEP_MINUTES_MS - MINUTE_MS;
      m = {
        field: recent ? writer : `${writer}.${++generation}`,
        counts: new Map(),
        dirty: false,
      };
      minutes.set(minute, m);
    }
    m.counts.set(field, (m.counts.get(field) ?? 0) + by);
    m.dirty = true;
    flushTimer ??= setTimeout(() => void flush(), FLUSH_MS).unref();
  };
  const flush = (): Promise<void> => {
    clearTimeout(flushTimer);
    flushTimer = undefined;
    flushing = flushing.then(async () => {
      const dirty = [...minutes].filter(([, m]) => m.dirty);
      if (dirty.length === 0) return;
      const tx = redis.multi();
      for (const [minute, m] of dirty) {
        m.dirty = false;
        tx.hset(minuteKey(minute), m.field, JSON.stringify(Object.fromEntries(m.counts)));
        tx.pexpire(minuteKey(minute), ttl + MINUTE_MS);
      }
      try {
        await tx.exec();
      } catch (error) {
        for (const [, m] of dirty) m.dirty = true;
        flushTimer ??= setTimeout(() => void flush(), FLUSH_MS).unref();
        options.onError?.(error as Error);
      }
      const oldest = now() - KEEP_MINUTES_MS - MINUTE_MS;
      for (const [minute, m] of minutes) if (minute < oldest && !m.dirty) minutes.delete(minute);
    });
    return flushing;
  };

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
      const results = batch.flatMap(w => (w.kind === 'run' ? w.results : []));
      const listed = batch.flatMap(w => (w.kind === 'run' ? [`${w.traceId} ${w.queuedAtMs}`] : []));
      try {
        // One batch (`sendBatch`): a run record's key is on its trace id's slot, the stream's
        // keys on `{r}`.
        await sendBatch<typeof commands>(redis, target => [
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
            return w.append
              ? target.spanscoreAppendRun(
                  runKey(w.traceId),
                  w.export ? line : '',
                  w.record,
                  String(ttl),
                  ...w.results,
                )
              : target.set(runKey(w.traceId), [line, w.record, ...w.results].join('\n'), 'PX', ttl);
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
              ]
            : []),
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
    if (queued.length - heldCount >= WRITE_BATCH) void flushWrites();
    else writeTimer ??= setTimeout(() => void flushWrites(), WRITE_DELAY_MS).unref();
  };

  function write(run: TraceRun, how: Pick<RunWrite, 'exportState'>): void {
    const t = now();
    const results = toStoredResults(run);
    const w: QueuedRun = {
      kind: 'run',
      traceId: run.traceId,
      record: JSON.stringify({
        ...runRecordPatch(run, t, retention.storeContent),
        receivedAtUnixMs: null,
      }),
      // The judge pass adds its results to the first pass's; any other pass replaces them.
      append: run.phase === 'llm',
      export: hasOutcomes(run)
        ? { state: how.exportState, attempts: 0, lastError: null, updatedAtUnixMs: t }
        : undefined,
      awaitingExport: hasOutcomes(run) && how.exportState === 'pending',
      queuedAtMs: t,
      results: results.map(r => JSON.stringify(r)),
    };
    enqueue(w);
    waitingRuns.set(run.traceId, w);
    for (const r of results)
      for (const [field, by] of resultIncrements(r)) count(minuteOf(r.timeUnixMs), field, by);
    if (run.state === 'not_scored' && run.reason) count(minuteOf(t), notScoredField(run.reason), 1);
    for (const [field, by] of toolIncrements(toolCallFacts(run))) count(minuteOf(t), field, by);
  }

  const flushAll = async (): Promise<void> => {
    await flushWrites(true);
    await flush();
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
      // Where the page starts: a result id (`<entry id>.<i>`) continues with that entry's results
      // before `i`, then older entries; an id of the layout before (an entry id) with older entries.
      const at = cursor?.lastIndexOf('.') ?? -1;
      const startEntry = at > 0 ? cursor!.slice(0, at) : undefined;
      const before = startEntry !== undefined ? Number(cursor!.slice(at + 1)) : Infinity;
      let max =
        startEntry ??
        (cursor !== undefined
          ? `(${cursor}`
          : filter.toUnixMs !== undefined
            ? `${filter.toUnixMs + WRITE_SLACK_MS}`
            : '+');
      const out: StoredResult[] = [];
      // Where the scan stopped with results left to read: the cursor of a page the scan limit cut.
      let stoppedAt: string | null = null;
      let scanned = 0;
      scan: for (;;) {
        const entries = await redis.xrevrange(stream, max, `${oldest}`, 'COUNT', SCAN_BATCH);
        for (const [id, fields] of entries) {
          const lines = entryResults(fields);
          for (
            let i = Math.min(lines.length, id === startEntry ? before : Infinity) - 1;
            i >= 0;
            i--
          ) {
            if (out.length > limit) break scan;
            if (scanned >= scanLimit) {
              stoppedAt = `${id}.${i + 1}`;
              break scan;
            }
            scanned++;
            const r = { id: `${id}.${i}`, ...(JSON.parse(lines[i]!) as Omit<StoredResult, 'id'>) };
            if (matchesFilter(r, filter)) out.push(r);
          }
          max = `(${id}`;
        }
        if (entries.length < SCAN_BATCH) break;
      }
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
    const at = cursor?.lastIndexOf('.') ?? -1;
    const startEntry = at > 0 ? cursor!.slice(0, at) : undefined;
    const before = startEntry !== undefined ? Number(cursor!.slice(at + 1)) : Infinity;
    let max =
      startEntry ?? (filter.toUnixMs !== undefined ? `${filter.toUnixMs + WRITE_SLACK_MS}` : '+');
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
        if (typeof raw !== 'string' || !raw.startsWith('E') || out.length > limit) return;
        const entry = traceListEntry(parseRun(p.traceId, raw));
        if (entry.timeUnixMs === p.time && matchesTraceFilter(entry, filter)) {
          out.push(entry);
          if (out.length > limit) stoppedAt = p.position;
        }
      });
      pending = [];
    };
    scan: for (;;) {
      const entries = await redis.xrevrange(listStream, max, `${oldest}`, 'COUNT', SCAN_BATCH);
      for (const [id, fields] of entries) {
        const lines = entryResults(fields);
        for (
          let i = Math.min(lines.length, id === startEntry ? before : Infinity) - 1;
          i >= 0;
          i--
        ) {
          if (scanned >= MAX_LIST_SCAN) {
            stoppedAt = `${id}.${i + 1}`;
            break scan;
          }
          scanned++;
          const [traceId, time] = lines[i]!.split(' ');
          pending.push({ traceId: traceId!, time: Number(time), position: `${id}.${i + 1}` });
          if (pending.length >= LIST_CHUNK) {
            await check();
            if (out.length > limit) break scan;
          }
        }
        max = `(${id}`;
      }
      if (entries.length < SCAN_BATCH) break;
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
    const pipeline = redis.pipeline();
    for (const m of wanted) pipeline.hgetall(minuteKey(m));
    const replies = (await pipeline.exec()) ?? [];
    return wanted.map((minuteUnixMs, i) => {
      const [error, hash] = replies[i] ?? [];
      if (error) throw error;
      return { minuteUnixMs, fields: sumMinute(hash as Record<string, string>) };
    });
  }

  /** A run record, with the export hash of the layout before when its value has no export line. */
  async function readRun(traceId: string): Promise<RunRecord | undefined> {
    const raw = await redis.get(runKey(traceId));
    if (typeof raw !== 'string') return undefined;
    if (raw.startsWith('E')) return parseRun(traceId, raw);
    const hash = await redis.hgetall(legacyExportKey(traceId));
    return { ...parseRun(traceId, `E\n${raw}`), export: exportStatusOf(hash) };
  }
}

/** A stream entry's results as JSON lines (an entry of the layout before holds one, in `r`). */
function entryResults(fields: string[]): string[] {
  for (let f = 0; f + 1 < fields.length; f += 2)
    if (fields[f] === 'r') return fields[f + 1]!.split('\n');
  return [];
}

/** A minute hash's fields summed: each process's counts (`@…`: JSON), and plain counters. */
function sumMinute(hash: Record<string, string>): Map<string, number> {
  const fields = new Map<string, number>();
  const add = (k: string, v: number): void => void fields.set(k, (fields.get(k) ?? 0) + v);
  for (const [k, v] of Object.entries(hash ?? {})) {
    if (k.startsWith('@'))
      for (const [f, n] of Object.entries(JSON.parse(v) as Record<string, number>)) add(f, n);
    else add(k, Number(v));
  }
  return fields;
}

/** A run's export line (see the run key's layout above). */
function exportLine(status: ExportStatus | undefined): string {
  if (!status) return 'E';
  return `E${status.state}\t${status.attempts}\t${status.updatedAtUnixMs}\t${JSON.stringify(status.lastError ?? '')}`;
}

/** An export line as a status; `null` for a pass with nothing to export. */
function parseExportLine(line: string): ExportStatus | null {
  const m = /^E([^\t]+)\t(\d+)\t(\d+)\t(.*)$/.exec(line);
  if (!m) return null;
  const error = JSON.parse(m[4]!) as string;
  return {
    state: m[1] as ExportStatus['state'],
    attempts: Number(m[2]),
    lastError: error === '' ? null : error,
    updatedAtUnixMs: Number(m[3]),
  };
}

/** The export hash of the layout before as a status; `null` when the run has none. */
function exportStatusOf(hash: Record<string, string>): ExportStatus | null {
  if (!hash.state) return null;
  return {
    state: hash.state as ExportStatus['state'],
    attempts: Number(hash.attempts ?? 0),
    lastError: hash.error || null,
    updatedAtUnixMs: Number(hash.at ?? 0),
  };
}

/** A run key's value: the export line, the record's JSON line, then one line per result. */
function parseRun(traceId: string, raw: string): RunRecord {
  const [exportText, record, ...results] = raw.split('\n');
  const fields = JSON.parse(record!) as Omit<RunRecord, 'results'>;
  return {
    ...fields,
    export: parseExportLine(exportText!),
    // Records written before tool calls were kept have neither field.
    toolCalls: fields.toolCalls ?? [],
    contentKept: fields.contentKept ?? true,
    results: results.slice(-MAX_RESULTS_PER_RUN).map((r, i): StoredResult => ({
      id: `${traceId}:${i}`,
      ...(JSON.parse(r) as Omit<StoredResult, 'id'>),
    })),
  };
}
