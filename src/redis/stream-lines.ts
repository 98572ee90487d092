import type { RedisClient } from './redis-connection.js';

/** Stream entries read per XREVRANGE (each holds the lines of one write). */
const SCAN_BATCH = 20;
/**
 * How far past a page's `toUnixMs` the stream is read: entries are written up to a batch delay
 * after their results were scored, later after Redis refused a write.
 */
const WRITE_SLACK_MS = 60_000;

/** A line of a stream entry, and where it is: `<entryId>.<index>`. */
export interface StreamLine {
  entryId: string;
  index: number;
  line: string;
  /** All the lines of its entry. */
  lines: readonly string[];
}

/** A cursor of this store: an entry id (`<ms>` or `<ms>-<seq>`), and `.<index>` after it. */
const STREAM_CURSOR = /^\d+(-\d+)?(\.\d+)?$/;

/**
 * The lines of one of the results store's streams (an entry per write, its lines in field `r`),
 * newest first, read `SCAN_BATCH` entries per round trip down to `oldestUnixMs`. `cursor`
 * (`<entryId>.<index>`) starts with that entry's lines before `index`, then older entries; a bare
 * entry id (the layout before) with the entries older than it. Without a cursor, from `toUnixMs`
 * (plus the write slack) or the newest entry. The caller stops reading when its page is full.
 * A cursor that names no place in a stream (the memory store's `<time>:<id>`, which the API
 * takes for either store, or `0-0`, before any entry) yields nothing: sent to Redis, each was an
 * id it refuses, and the API's answer a 500.
 */
export async function* newestStreamLines(
  redis: RedisClient,
  stream: string,
  from: { cursor?: string | undefined; toUnixMs?: number | undefined; oldestUnixMs: number },
): AsyncGenerator<StreamLine> {
  const { cursor } = from;
  if (cursor !== undefined && (!STREAM_CURSOR.test(cursor) || /^0+-0+$/.test(cursor))) return;
  const at = cursor?.lastIndexOf('.') ?? -1;
  const startEntry = at > 0 ? cursor!.slice(0, at) : undefined;
  const before = startEntry !== undefined ? Number(cursor!.slice(at + 1)) : Infinity;
  let max =
    startEntry ??
    (cursor !== undefined
      ? `(${cursor}`
      : from.toUnixMs !== undefined
        ? `${from.toUnixMs + WRITE_SLACK_MS}`
        : '+');
  for (;;) {
    const entries = await redis.xrevrange(stream, max, `${from.oldestUnixMs}`, 'COUNT', SCAN_BATCH);
    for (const [id, fields] of entries) {
      const lines = entryLines(fields);
      for (let i = Math.min(lines.length, id === startEntry ? before : Infinity) - 1; i >= 0; i--)
        yield { entryId: id, index: i, line: lines[i]!, lines };
      max = `(${id}`;
    }
    if (entries.length < SCAN_BATCH) return;
  }
}

/** A stream entry's lines (an entry of the layout before holds one result, in `r` too). */
export function entryLines(fields: string[]): string[] {
  for (let f = 0; f + 1 < fields.length; f += 2)
    if (fields[f] === 'r') return fields[f + 1]!.split('\n');
  return [];
}

/**
 * A stream entry id (`<ms>-<seq>`) as a number that orders entries as Redis does, for a sorted
 * set's score: `ms × 1024 + seq`, exact in a double until the year 2248. The results store writes
 * one entry per batch, so a millisecond never holds 1,024 of them; a larger `seq` counts as 1,023.
 */
export function streamOrder(entryId: string): number {
  const dash = entryId.indexOf('-');
  const ms = Number(dash < 0 ? entryId : entryId.slice(0, dash));
  const seq = dash < 0 ? 0 : Number(entryId.slice(dash + 1));
  return ms * 1024 + Math.min(seq, 1023);
}
