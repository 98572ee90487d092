import { cutTextMarked } from '../ingest/cut-text.js';

/**
 * What a result carries at most, wherever it is written (an evaluation span, its event and its
 * log record; a stored result, which the results page and API show), of a value the trace sets
 * the size of: tool names, reasons naming every failed call with its error, test case ids.
 * Nothing bounded them: one trace of 2,000 failing tool spans (a 35 KB gzip request) made one
 * 17 MB export (a 2.4 MB explanation and two 2 MB tool lists in each of its three tool-health
 * spans), which tracing backends refuse (many at 4 MB) with the spans of every trace batched with
 * it; and its three stored results made `/api/v1/results` 14.8 MB, so that twelve such traces ran
 * the memory driver's 192 MB heap out. Real values are far smaller: a reason of a few hundred
 * characters, a tool list of a few dozen names.
 */
export const RESULT_BOUNDS = Object.freeze({
  /** UTF-16 units of a text (a reason or explanation, an error, a test case id). */
  maxTextChars: 4096,
  /**
   * Items of a list (tools used, the tool sequence, agents, the agents a failure blames, expected,
   * missing, unexpected tools).
   */
  maxListItems: 256,
  /** UTF-16 units of a list's items together. */
  maxListChars: 4096,
});

/**
 * `text` as a result carries it: itself when within {@link RESULT_BOUNDS}.maxTextChars,
 * else its first characters ending in `…`, that many in all (never half a surrogate pair), and
 * a note on `cut` naming `key` and both lengths. Pure but for `cut`.
 */
export function boundedText(key: string, text: string, cut: string[]): string {
  const max = RESULT_BOUNDS.maxTextChars;
  if (text.length <= max) return text;
  cut.push(`${key}: ${max} of ${text.length} characters`);
  return cutTextMarked(text, max);
}

/**
 * The first items of `list` as a result carries them: `list` itself when within
 * {@link RESULT_BOUNDS} (no copy), else the longest start of it within both bounds, and
 * a note on `cut` naming `key` and both counts. Items are never cut: of tool or agent names (at
 * most 1,024 characters: `cutName`) at least four are kept. Reads at most `maxListItems` items.
 * Pure but for `cut`.
 */
export function boundedList(key: string, list: readonly string[], cut: string[]): string[] {
  const { maxListItems, maxListChars } = RESULT_BOUNDS;
  let chars = 0;
  let n = 0;
  const end = Math.min(list.length, maxListItems);
  while (n < end && chars + list[n]!.length <= maxListChars) chars += list[n++]!.length;
  if (n === list.length) return list as string[];
  cut.push(`${key}: ${n} of ${list.length} items`);
  return list.slice(0, n);
}
