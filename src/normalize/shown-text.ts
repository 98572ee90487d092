import { cutTextMarked } from '../ingest/cut-text.js';

/**
 * Characters a run shows of a text its trace chose that matched nothing (a test case id no suite
 * has, a root span's name), on its record, in its reason, its diagnostics and the logs; the rest is cut (`…`).
 * Uncut, one trace of a megabyte-long unknown test case id (a kilobyte of gzip) kept 2 MB (the
 * id, and its reason naming it) in its run record for the retention, in the memory driver's heap
 * or in Redis, and as much in each page of `/api/v1/traces` listing it.
 */
export const MAX_SHOWN_ID_CHARS = 256;

/** `text` within {@link MAX_SHOWN_ID_CHARS}: itself, or its start ending in `…`. Pure. */
export function shownText(text: string): string {
  return cutTextMarked(text, MAX_SHOWN_ID_CHARS);
}
