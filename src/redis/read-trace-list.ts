import { isSessionRecordKey } from '../results/run-record-key.js';
import {
  matchesTraceFilter,
  traceListEntry,
  type TraceListEntry,
  type TracesFilter,
  type TracesPage,
} from '../results/trace-list.js';
import { sendBatch, type RedisClient } from './redis-connection.js';
import type { ResultsStoreKeys } from './results-store-keys.js';
import { hasExportLine, parseRun } from './run-record-layout.js';
import { newestStreamLines } from './stream-lines.js';

/** Trace-list lines whose run records are read in one round trip, and read at most per page. */
const LIST_CHUNK = 100;
const MAX_LIST_SCAN = 5_000;
/** Lines read in a page's first round trip, before the size of its records is known. */
const FIRST_CHUNK = 20;
/**
 * Characters of run records read per page, at most (and one round trip's more): a record keeps
 * up to 200 tool calls with 2,000 characters each of arguments and result, about 860 KB, and
 * 5,000 such records (the most listed) made a filtered page read and parse 4.3 GB. A usual
 * record (about 2 KB) reads 5,000 lines within it.
 */
export const MAX_LIST_CHARS = 16 * 1024 * 1024;

/**
 * A page of the trace list, newest first: each line's run record read (pipelined, a chunk at a
 * time) and kept when the line is its latest (the record's time is the line's: a trace written
 * again is listed where it was written last) and it passes `filter` (session records only when
 * `filter.sessions`, trace records otherwise), no older than `oldestUnixMs`. Scans at most
 * MAX_LIST_SCAN (5,000) lines and {@link MAX_LIST_CHARS} of their records (a round trip's lines
 * being as many as that leaves room for at the largest record read so far); the cursor
 * (`<entry id>.<line>`) continues where a page ended or the scan stopped.
 */
export async function readTraceList(
  redis: RedisClient,
  keys: Pick<ResultsStoreKeys, 'listStream' | 'runKey'>,
  filter: TracesFilter,
  limit: number,
  cursor: string | undefined,
  oldestUnixMs: number,
): Promise<TracesPage> {
  const out: TraceListEntry[] = [];
  let scanned = 0;
  let stoppedAt: string | null = null;
  let pending: Array<{ traceId: string; time: number; position: string }> = [];
  // Characters of records read, and the largest record, for the next round trip's size.
  let chars = 0;
  let largest = 0;
  const chunk = (): number =>
    largest === 0
      ? FIRST_CHUNK
      : Math.max(1, Math.min(LIST_CHUNK, Math.floor((MAX_LIST_CHARS - chars) / largest)));
  const check = async (): Promise<void> => {
    const records = await sendBatch<RedisClient>(redis, target =>
      pending.map(p => target.get(keys.runKey(p.traceId))),
    );
    pending.forEach((p, i) => {
      const raw = records[i];
      if (typeof raw === 'string') {
        chars += raw.length;
        largest = Math.max(largest, raw.length);
      }
      if (typeof raw !== 'string' || !hasExportLine(raw) || out.length > limit) return;
      if (isSessionRecordKey(p.traceId) !== (filter.sessions === true)) return;
      // A layout 2 record's results are counted from its pointers' letters, without the stream.
      const entry = traceListEntry(parseRun(p.traceId, raw, true));
      if (entry.timeUnixMs === p.time && matchesTraceFilter(entry, filter)) {
        out.push(entry);
        if (out.length > limit) stoppedAt = p.position;
      }
    });
    pending = [];
  };
  const lines = newestStreamLines(redis, keys.listStream, {
    cursor,
    toUnixMs: filter.toUnixMs,
    oldestUnixMs,
  });
  for await (const { entryId, index, line } of lines) {
    if (scanned >= MAX_LIST_SCAN || chars >= MAX_LIST_CHARS) {
      stoppedAt = `${entryId}.${index + 1}`;
      break;
    }
    scanned++;
    // `<record key> <time>`: a session's key holds its id, any text (spaces too), so the time is
    // after the last space.
    const at = line.lastIndexOf(' ');
    pending.push({
      traceId: line.slice(0, at),
      time: Number(line.slice(at + 1)),
      position: `${entryId}.${index + 1}`,
    });
    if (pending.length >= chunk()) {
      await check();
      if (out.length > limit) break;
    }
  }
  if (out.length <= limit && pending.length) await check();
  return { traces: out.slice(0, limit), nextCursor: stoppedAt };
}
