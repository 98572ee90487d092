import { resultRecordKey } from '../results/run-record-key.js';
import { matchesFilter, type ResultsFilter, type ResultsPage } from '../results/results-query.js';
import type { StoredResult } from '../results/stored-result.js';
import type { RedisClient } from './redis-connection.js';
import type { ResultsStoreKeys } from './results-store-keys.js';
import { EntryResults } from './result-lines.js';
import { newestStreamLines, streamOrder } from './stream-lines.js';

/** Results checked against the rescored traces (one ZMSCORE) at a time, reading a page. */
const REPLACED_CHECK_CHUNK = 200;

/**
 * One page of the results stream, newest first: the results matching `filter`, from `cursor` on
 * and no older than `oldestUnixMs`, without those a later pass of their trace replaced (a rescore
 * after late spans). Reads at most `scanLimit` results: a rare filter answers with fewer rows (even
 * none) and a `nextCursor` to go on scanning from where it stopped.
 */
export async function readResultsPage(
  redis: RedisClient,
  keys: Pick<ResultsStoreKeys, 'stream' | 'replacedSet'>,
  filter: ResultsFilter,
  limit: number,
  cursor: string | undefined,
  { oldestUnixMs, scanLimit }: { oldestUnixMs: number; scanLimit: number },
): Promise<ResultsPage> {
  const out: StoredResult[] = [];
  // Where the scan stopped with results left to read: the cursor of a page the scan limit cut.
  let stoppedAt: string | null = null;
  let scanned = 0;
  const lines = newestStreamLines(redis, keys.stream, {
    cursor,
    toUnixMs: filter.toUnixMs,
    oldestUnixMs,
  });
  // Matching results wait in `candidates` until a chunk of them is checked for rescores.
  let candidates: StoredResult[] = [];
  const settle = async (): Promise<void> => {
    out.push(...(await withoutReplaced(redis, keys.replacedSet, candidates)));
    candidates = [];
  };
  // The entry being read, decoded lazily (a layout 2 line reads its pass's first line too).
  let entry: { id: string; results: EntryResults } | undefined;
  for await (const { entryId, index, lines: entryLines } of lines) {
    if (out.length + candidates.length > limit) await settle();
    if (out.length > limit) break;
    if (scanned >= scanLimit) {
      stoppedAt = `${entryId}.${index + 1}`;
      break;
    }
    scanned++;
    if (entry?.id !== entryId) entry = { id: entryId, results: new EntryResults(entryLines) };
    const result = entry.results.at(index);
    if (!result) continue;
    const r = { id: `${entryId}.${index}`, ...result };
    if (matchesFilter(r, filter)) candidates.push(r);
    if (candidates.length >= REPLACED_CHECK_CHUNK) await settle();
  }
  if (candidates.length > 0) await settle();
  const page = out.slice(0, limit);
  return {
    results: page,
    nextCursor: out.length > limit ? page.at(-1)!.id : stoppedAt,
  };
}

/**
 * `results` without those a later pass of their trace replaced: in a stream entry older than
 * the one `replacedSet` holds for the trace (one ZMSCORE for the chunk's traces).
 */
async function withoutReplaced(
  redis: RedisClient,
  replacedSet: string,
  results: StoredResult[],
): Promise<StoredResult[]> {
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
