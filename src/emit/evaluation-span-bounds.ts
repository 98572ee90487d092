import { cutText } from '../ingest/cut-text.js';

/**
 * What one evaluation span (and its event, and its log record) carries of a value that comes from
 * the trace at most. Tool names, reasons naming every failed call with its error, test case ids:
 * a trace sets their size, and nothing else bounded what a span repeated of them. One trace of
 * 2,000 failing tool spans (a 35 KB gzip request) made one 17 MB export: a 2.4 MB explanation
 * and two 2 MB tool lists in each of its three tool-health spans. Tracing backends refuse such
 * requests (many at 4 MB) or cut such attributes (a few KB), and the request held every trace's
 * spans of its batch, so all of them failed and were retried with it. Real values are far
 * smaller: a reason of a few hundred characters, a tool list of a few dozen names.
 */
export const EVALUATION_SPAN_BOUNDS = Object.freeze({
  /** UTF-16 units of a text attribute (an explanation, an error, a test case id) and of the status message. */
  maxTextChars: 4096,
  /** Items of a list attribute (tools used, the tool sequence, agents, expected, missing, unexpected tools). */
  maxListItems: 256,
  /** UTF-16 units of a list attribute's items together. */
  maxListChars: 4096,
});

/**
 * `text` as a span carries it: itself when within {@link EVALUATION_SPAN_BOUNDS}.maxTextChars,
 * else its first characters ending in `…`, that many in all (never half a surrogate pair), and
 * a note on `cut` naming `key` and both lengths. Pure but for `cut`.
 */
export function boundedText(key: string, text: string, cut: string[]): string {
  const max = EVALUATION_SPAN_BOUNDS.maxTextChars;
  if (text.length <= max) return text;
  cut.push(`${key}: ${max} of ${text.length} characters`);
  return `${cutText(text, max - 1)}…`;
}

/**
 * The first items of `list` as a span carries them: `list` itself when within
 * {@link EVALUATION_SPAN_BOUNDS} (no copy), else the longest start of it within both bounds, and
 * a note on `cut` naming `key` and both counts. Items are never cut (tool and agent names are at
 * most 1,024 characters: `cutName`), so at least four are kept. Reads at most
 * `maxListItems + 1` items. Pure but for `cut`.
 */
export function boundedList(key: string, list: readonly string[], cut: string[]): string[] {
  const { maxListItems, maxListChars } = EVALUATION_SPAN_BOUNDS;
  let chars = 0;
  let n = 0;
  const end = Math.min(list.length, maxListItems);
  while (n < end && chars + list[n]!.length <= maxListChars) chars += list[n++]!.length;
  if (n === list.length) return list as string[];
  cut.push(`${key}: ${n} of ${list.length} items`);
  return list.slice(0, n);
}
