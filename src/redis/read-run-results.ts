import { resultRecordKey } from '../results/run-record-key.js';
import type { RunRecord, StoredResult } from '../results/stored-result.js';
import { sendBatch, type RedisClient } from './redis-connection.js';
import { EntryResults } from './result-lines.js';
import { keptLines, type ParsedRun } from './run-record-layout.js';
import { entryLines } from './stream-lines.js';

/**
 * Run records with their results, from parsed run key values (`parseRunValue`): the results a
 * value holds (layout 1), and those its pointers locate in the results stream (layout 2), read
 * with one XRANGE per stream entry (one round trip for all). Each record keeps its newest
 * `MAX_RESULTS_PER_RUN` results, ids `<trace id>:<i>` as layout 1 gives them. A pointer whose
 * entry the stream no longer holds (trimmed to `maxResults`, or past the retention), or whose
 * lines are not its run's results, is counted in the record's `resultsDropped` instead: a
 * record never shows fewer results without saying so.
 */
export async function readRunResults(
  redis: RedisClient,
  stream: string,
  runs: ReadonlyArray<{ traceId: string; parsed: ParsedRun }>,
): Promise<RunRecord[]> {
  const kept = runs.map(r => keptLines(r.parsed.lines));
  const entryIds = [
    ...new Set(
      kept.flatMap(k => k.lines.flatMap(l => ('pointer' in l ? [l.pointer.entryId] : []))),
    ),
  ];
  const entries = new Map<string, EntryResults>();
  if (entryIds.length) {
    const replies = await sendBatch<RedisClient>(redis, target =>
      entryIds.map(id => target.xrange(stream, id, id)),
    );
    replies.forEach((reply, i) => {
      const found = reply as Array<[string, string[]]>;
      if (found.length === 1) entries.set(entryIds[i]!, new EntryResults(entryLines(found[0]![1])));
    });
  }
  return runs.map(({ traceId, parsed }, r) => {
    const { lines, skip } = kept[r]!;
    const results: Array<Omit<StoredResult, 'id'>> = [];
    let dropped = 0;
    lines.forEach((l, n) => {
      // The first line read may hold results older than the newest MAX_RESULTS_PER_RUN.
      const older = n === 0 ? skip : 0;
      if ('result' in l) {
        if (older === 0) results.push(l.result);
        return;
      }
      const { entryId, line, codes } = l.pointer;
      const entry = entries.get(entryId);
      const found: Array<Omit<StoredResult, 'id'>> = [];
      for (let i = 0; entry && i < codes.length && line + i < entry.length; i++) {
        const result = entry.at(line + i);
        if (!result || resultRecordKey(result) !== traceId) break;
        found.push(result);
      }
      if (found.length === codes.length) results.push(...found.slice(older));
      else dropped += codes.length - older;
    });
    return {
      ...parsed.fields,
      results: results.map((x, i): StoredResult => ({ id: `${traceId}:${i}`, ...x })),
      ...(dropped > 0 && { resultsDropped: dropped }),
    };
  });
}
