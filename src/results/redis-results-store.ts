import type { Redis } from 'ioredis';
import type { TraceRun } from '../score/trace-run.js';
import {
  FAILED_FIELD,
  MINUTE_MS,
  minuteOf,
  notScoredField,
  resultIncrements,
  summarizeMinutes,
} from './minute-aggregates.js';
import { matchesFilter, type ResultsFilter, type ResultsPage } from './results-query.js';
import { failureReason, type ResultsRetention, type ResultsStore } from './results-store.js';
import { MAX_RESULTS_PER_RUN, type RunRecord, type StoredResult } from './stored-result.js';
import { runRecordPatch, toStoredResults } from './to-stored-results.js';

/** Stream entries read per XREVRANGE while filtering a results page. */
const SCAN_BATCH = 500;
/** At most this many entries are read for one page: a rare filter answers with fewer rows. */
const SCAN_LIMIT = 20_000;

/**
 * The BullMQ driver's results store, in Redis, bounded and expiring:
 * - `<prefix>:results:{r}:stream`: a stream of results (`XADD … MAXLEN ~ maxResults`, trimmed to
 *   `retentionMs` by `MINID` once a minute); stream ids are the result ids and page cursors, and
 *   their time part lets a time-filtered page read only its range.
 * - `<prefix>:results:{r}:m:<minute>`: a hash of per-minute counters per scorer, test case or rule
 *   and service (see `minute-aggregates.ts`), expiring after `retentionMs`.
 * - `<prefix>:run:{<traceId>}` and `…:results`: the run record (JSON) and its results (a list),
 *   expiring after `retentionMs`.
 *
 * The results keys share the hash tag `{r}` and a run's keys its trace id's, so every write is one
 * MULTI on one slot, and a Redis Cluster can hold them. A trace run costs two round trips (its
 * results, then its run record).
 */
export function createRedisResultsStore(
  redis: Redis,
  prefix: string,
  retention: ResultsRetention,
  now: () => number = Date.now,
): ResultsStore {
  const stream = `${prefix}:results:{r}:stream`;
  const minuteKey = (minute: number): string => `${prefix}:results:{r}:m:${minute}`;
  const runKey = (traceId: string): string => `${prefix}:run:{${traceId}}`;
  const runResultsKey = (traceId: string): string => `${prefix}:run:{${traceId}}:results`;
  const ttl = retention.retentionMs;
  let lastTrimMs = 0;

  async function writeRun(
    record: Omit<RunRecord, 'results'>,
    results: StoredResult[],
  ): Promise<void> {
    const { traceId } = record;
    const tx = redis.multi().set(runKey(traceId), JSON.stringify(record), 'PX', ttl);
    if (results.length) {
      tx.rpush(runResultsKey(traceId), ...results.map(r => JSON.stringify(r)))
        .ltrim(runResultsKey(traceId), -MAX_RESULTS_PER_RUN, -1)
        .pexpire(runResultsKey(traceId), ttl);
    }
    await tx.exec();
  }

  async function write(run: TraceRun): Promise<void> {
    const t = now();
    const results = toStoredResults(run);
    const tx = redis.multi();
    const touched = new Set<number>();
    for (const r of results) {
      tx.xadd(stream, 'MAXLEN', '~', retention.maxResults, '*', 'r', JSON.stringify(r));
      const minute = minuteOf(r.timeUnixMs);
      for (const [field, by] of resultIncrements(r)) tx.hincrbyfloat(minuteKey(minute), field, by);
      touched.add(minute);
    }
    if (run.state === 'not_scored' && run.reason) {
      tx.hincrbyfloat(minuteKey(minuteOf(t)), notScoredField(run.reason), 1);
      touched.add(minuteOf(t));
    }
    for (const minute of touched) tx.pexpire(minuteKey(minute), ttl + MINUTE_MS);
    if (t - lastTrimMs > MINUTE_MS) {
      lastTrimMs = t;
      tx.xtrim(stream, 'MINID', '~', t - ttl);
    }
    const replies = (await tx.exec()) ?? [];
    const stored = results.map((r, i): StoredResult => {
      const [error, id] = replies[i] ?? [];
      if (error) throw error;
      return { id: id as string, ...r };
    });
    await writeRun({ ...runRecordPatch(run, t), receivedAtUnixMs: null }, stored);
  }

  return {
    name: 'redis',
    sink: { name: 'results-store', write },
    async recordFailure(traceId, phase, error) {
      const t = now();
      await redis
        .multi()
        .hincrbyfloat(minuteKey(minuteOf(t)), FAILED_FIELD, 1)
        .pexpire(minuteKey(minuteOf(t)), ttl + MINUTE_MS)
        .exec();
      const raw = await redis.get(runKey(traceId));
      const previous = raw ? (JSON.parse(raw) as Omit<RunRecord, 'results'>) : undefined;
      await writeRun(
        {
          traceId,
          state: 'failed',
          reason: failureReason(phase, error),
          testCaseId: previous?.testCaseId ?? null,
          serviceName: previous?.serviceName ?? '',
          matched: previous?.matched ?? [],
          awaitingJudge: [],
          receivedAtUnixMs: previous?.receivedAtUnixMs ?? null,
          updatedAtUnixMs: t,
        },
        [],
      );
    },
    async summary(fromUnixMs, toUnixMs, filter = {}) {
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
      const oldest = Math.max(filter.fromUnixMs ?? 0, now() - ttl);
      let max = cursor ? `(${cursor}` : filter.toUnixMs !== undefined ? `${filter.toUnixMs}` : '+';
      const out: StoredResult[] = [];
      for (let scanned = 0; scanned < SCAN_LIMIT && out.length <= limit;) {
        const entries = await redis.xrevrange(stream, max, `${oldest}`, 'COUNT', SCAN_BATCH);
        for (const [id, fields] of entries) {
          const r = { id, ...(JSON.parse(fields[1]!) as Omit<StoredResult, 'id'>) };
          if (matchesFilter(r, filter)) out.push(r);
          if (out.length > limit) break;
        }
        scanned += entries.length;
        if (entries.length < SCAN_BATCH) break;
        max = `(${entries.at(-1)![0]}`;
      }
      const page = out.slice(0, limit);
      return { results: page, nextCursor: out.length > limit ? page.at(-1)!.id : null };
    },
    async run(traceId) {
      const [[e1, record], [e2, results]] = ((await redis
        .multi()
        .get(runKey(traceId))
        .lrange(runResultsKey(traceId), 0, -1)
        .exec()) ?? []) as Array<[Error | null, unknown]> as [
        [Error | null, string | null],
        [Error | null, string[]],
      ];
      const error = e1 ?? e2;
      if (error) throw error;
      if (!record) return undefined;
      return {
        ...(JSON.parse(record) as Omit<RunRecord, 'results'>),
        results: results.map(r => JSON.parse(r) as StoredResult),
      };
    },
  };
}
