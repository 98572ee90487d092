import { createHash } from 'node:crypto';
import { SpanscoreError } from '../errors/spanscore-error.js';
import { MINUTE_MS, minuteOf, summarizeMinutes } from '../results/minute-aggregates.js';
import { notScoredField } from '../results/not-scored-field.js';
import {
  amendedRecord,
  endedRunRecord,
  EXPIRED_REASON,
  failedRunRecord,
  type ResultsRetention,
  type ResultsStore,
} from '../results/results-store.js';
import { failureIncrements } from '../results/replaced-pass.js';
import type { RunRecord } from '../results/stored-result.js';
import { summarizeFailures } from '../results/summarize-failures.js';
import { summarizeTools } from '../results/tool-aggregates.js';
import { readResultsPage } from './read-results-page.js';
import { readTraceList } from './read-trace-list.js';
import type { RedisClient } from './redis-connection.js';
import { RedisFailureSignatures } from './redis-failure-signatures.js';
import { RedisMinuteCounters } from './redis-minute-counters.js';
import { createRedisResultsWriter } from './redis-results-writer.js';
import { withResultsStoreScripts } from './results-store-scripts.js';
import { resultsStoreKeys } from './results-store-keys.js';
import { compactRecordLine, type RecordFields } from '../results/compact-run-record.js';
import { readRunResults } from './read-run-results.js';
import { exportStatusOf, hasExportLine, parseRunValue } from './run-record-layout.js';

/** How often `amendRun` reads a record again that another pass rewrote while it amended it. */
const AMEND_TRIES = 3;

/** How far ahead of this process's clock a writer's may run: its latest minutes are still read. */
const CLOCK_AHEAD_MS = 5 * MINUTE_MS;

/**
 * At most this many results are read for one page: a rare filter answers with fewer rows (even
 * none), and a `nextCursor` to go on scanning from where it stopped.
 */
const SCAN_LIMIT = 20_000;

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
 * - `<prefix>:results:{r}:f:<minute>`: a hash of the minute's failure signatures, kept as the
 *   counters are (one field per writing process, see `RedisFailureSignatures`).
 * - `<prefix>:run:{<traceId>}`: the run's export line, its record's JSON line and one line per
 *   result (layout 1), or per pass pointing at its results in the stream (layout 2: each result
 *   stored once; see `run-record-layout.ts`, `result-lines.ts`), expiring after `retentionMs`.
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
    /**
     * The results layout written (`results.layout`): 1, each result in the stream and again in
     * its run record; 2, results in the stream only, the record pointing at them. Both are read.
     * @defaultValue 1
     */
    layout?: 1 | 2;
  } = {},
): ResultsStore {
  const now = options.now ?? Date.now;
  const scanLimit = options.scanLimit ?? SCAN_LIMIT;
  const keys = resultsStoreKeys(prefix);
  const { listStream, listIndex, listCount, runKey } = keys;
  const ttl = retention.retentionMs;
  const commands = withResultsStoreScripts(redis);
  const counters = new RedisMinuteCounters(redis, keys.minuteKey, ttl, now, options.onError);
  const signatures = new RedisFailureSignatures(
    redis,
    keys.failuresKey,
    retention,
    ttl,
    now,
    options.onError,
  );
  // Trace runs and export outcomes are written in batches (see `createRedisResultsWriter`);
  // a read of this process's own writes flushes them first.
  const layout = options.layout ?? 1;
  const writer = createRedisResultsWriter(commands, keys, retention, counters, {
    now,
    onError: options.onError,
    signatures,
    layout,
  });
  /** A record line of the layout written (see `run-record-layout.ts`). */
  const recordLine = (fields: RecordFields, traceId: string): string =>
    layout === 2 ? compactRecordLine(fields, traceId) : JSON.stringify(fields);

  const flushAll = async (): Promise<void> => {
    await writer.flush(true);
    await Promise.all([counters.flush(), signatures.flush()]);
  };

  return {
    name: 'redis',
    write: (run, how) => writer.write(run, how),
    close: flushAll,
    recordExport(traceId, outcome) {
      writer.recordExport(traceId, outcome);
      return Promise.resolve();
    },
    async amendRun(traceId, amendment) {
      await writer.flush(true);
      // One read, then one script that writes the amended line only if the record line is still
      // the one read; else it answers with the value now, which is amended and tried again.
      let raw: unknown = await redis.get(runKey(traceId));
      for (let tries = 0; tries < AMEND_TRIES; tries++) {
        if (typeof raw !== 'string') return;
        const value = hasExportLine(raw) ? raw : `E\n${raw}`;
        const fields: RecordFields & { export?: unknown } = parseRunValue(traceId, value).fields;
        // The export line stays where it is, and the results after the record too.
        delete fields.export;
        raw = await commands.spanscoreAmendRun(
          runKey(traceId),
          sha1(value.split('\n', 2)[1]!),
          recordLine(amendedRecord(fields, amendment), traceId),
          String(ttl),
        );
        if (raw === 1) return;
      }
      throw new SpanscoreError(
        'SS_REDIS_FAILED',
        `Redis, amending the record of trace ${traceId}: it was rewritten by another pass each of the ${AMEND_TRIES} times it was read; left as the last pass wrote it`,
      );
    },
    async recordFailure(traceId, phase, error, session) {
      const t = now();
      await writer.flush(true);
      const previous = await readRun(traceId);
      for (const [minute, field, by] of failureIncrements(previous, t))
        counters.count(minute, field, by);
      // The failure replaces the record's line and keeps the results and export written before it.
      await commands.spanscoreAppendRun(
        runKey(traceId),
        '',
        recordLine(failedRunRecord(traceId, phase, error, previous, t, session), traceId),
        String(ttl),
      );
      await listed(traceId, t);
    },
    async recordExpired(traceId, reason) {
      const t = now();
      counters.count(minuteOf(t), notScoredField(EXPIRED_REASON), 1);
      await writer.flush(true);
      const previous = await readRun(traceId);
      await commands.spanscoreAppendRun(
        runKey(traceId),
        '',
        recordLine(endedRunRecord(traceId, 'expired', reason, previous, t), traceId),
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
    async failures(fromUnixMs, toUnixMs, filter = {}) {
      await flushAll();
      const minutes = await signatures.read(minutesOf(fromUnixMs, toUnixMs));
      return summarizeFailures(minutes, fromUnixMs, toUnixMs, filter);
    },
    async results(filter, limit, cursor) {
      await writer.flush(true);
      return readResultsPage(redis, keys, filter, limit, cursor, {
        oldestUnixMs: Math.max(filter.fromUnixMs ?? 0, now() - ttl),
        scanLimit,
      });
    },
    async run(traceId) {
      await writer.flush(true);
      return readRun(traceId);
    },
    async traces(filter, limit, cursor) {
      await writer.flush(true);
      const oldest = Math.max(filter.fromUnixMs ?? 0, now() - ttl);
      return readTraceList(redis, keys, filter, limit, cursor, oldest);
    },
  };

  /** Lists a trace whose record an ended run (failed, expired) rewrote, in the trace list. */
  async function listed(traceId: string, t: number): Promise<void> {
    await commands.spanscoreAddResults(listStream, listIndex, listCount, '1', `${traceId} ${t}`);
  }

  /** The minutes of `[fromUnixMs, toUnixMs]` within the retention, every writer's counts summed. */
  async function readMinutes(
    fromUnixMs: number,
    toUnixMs: number,
  ): Promise<Array<{ minuteUnixMs: number; fields: Map<string, number> }>> {
    await flushAll();
    return counters.read(minutesOf(fromUnixMs, toUnixMs));
  }

  /**
   * The minutes of `[fromUnixMs, toUnixMs]` within the retention and no later than a few minutes
   * from now (a writer's clock may run ahead of this one's): minutes are named by their writers'
   * clocks, so none later holds anything. A read is a command per minute, and the API takes `to` up
   * to the year 275760: unbounded, a summary to then built an array of 1.4e11 minutes and ended
   * the process.
   */
  function minutesOf(fromUnixMs: number, toUnixMs: number): number[] {
    const t = now();
    const from = Math.max(minuteOf(fromUnixMs), minuteOf(t - ttl));
    const to = Math.min(toUnixMs, t + CLOCK_AHEAD_MS);
    const wanted: number[] = [];
    for (let m = from; m <= to; m += MINUTE_MS) wanted.push(m);
    return wanted;
  }

  /** A run record, with the export hash of the layout before when its value has no export line. */
  async function readRun(traceId: string): Promise<RunRecord | undefined> {
    const raw = await redis.get(runKey(traceId));
    if (typeof raw !== 'string') return undefined;
    const parsed = parseRunValue(traceId, hasExportLine(raw) ? raw : `E\n${raw}`);
    const record = (await readRunResults(redis, keys.stream, [{ traceId, parsed }]))[0]!;
    if (hasExportLine(raw)) return record;
    return {
      ...record,
      export: exportStatusOf(await redis.hgetall(keys.legacyExportKey(traceId))),
    };
  }
}

/** A record line's SHA-1 as `redis.sha1hex` gives it (`lua/amend-run.ts`). */
function sha1(text: string): string {
  return createHash('sha1').update(text).digest('hex');
}
