import { flatCopy } from './flat-copy.js';

/**
 * The cuts of untrusted text to a bound, neither splitting a surrogate pair (a lone half would be
 * stored as U+FFFD, another text), each a string of its own when it cut (`flatCopy`): a slice of
 * 13 or more characters is, in V8, a view that keeps all of the text alive, and what holds a cut
 * text (a held span's service name, a counter's name) counts the cut's characters, not the text's
 * (100 requests of one held span with a 1 MB `service.name`, 1 KB of gzip each, held 103 MB):
 * - {@link cutText}: to UTF-16 units, with no mark: resource texts (`resourceText`), tool and
 *   agent names (`cutName`), a tool call's content in a run record, judge prompts.
 * - {@link cutTextMarked}: to UTF-16 units, with `…` when cut: results' texts (`boundedText`),
 *   texts a reason or diagnostic shows (`shownText`), the not-scored counters' reasons, failure
 *   signatures (`failureSignature`).
 * - {@link cutTextBytes}: to UTF-8 bytes, with `…` when cut: what an argument problem quotes
 *   (`describeProblems`, `quoteJson`) and the schema texts a refusal quotes.
 */

/**
 * The first `max` UTF-16 units of `text`, never ending in the first half of a surrogate pair, as
 * a string of its own; `text` itself when it is short enough. Pure.
 */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  const last = text.charCodeAt(max - 1);
  return flatCopy(text.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max));
}

/** UTF-8 bytes of the ellipsis that ends a cut text. */
const ELLIPSIS_BYTES = 3;

/**
 * `text` if it is at most `maxBytes` bytes in UTF-8; else its longest prefix that fits in
 * `maxBytes` with `…` after it (never splitting a surrogate pair), so the result is at most
 * `maxBytes` bytes either way. Its loop reads at most `maxBytes + 1` characters of `text`,
 * however long it is; but a string built by concatenation (a rope, such as Ajv's `instancePath`)
 * is copied whole into one flat string by the engine on its first read, so a caller bounds how
 * many such strings it cuts. `maxBytes` must be at least 4. Pure.
 */
export function cutTextBytes(text: string, maxBytes: number): string {
  // Each UTF-16 unit is at most 3 bytes (a surrogate pair, two units, is 4).
  if (text.length * 3 <= maxBytes) return text;
  const room = maxBytes - ELLIPSIS_BYTES;
  let bytes = 0;
  let cutAt = -1;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const pair = c >= 0xd800 && c <= 0xdbff && isLowSurrogate(text.charCodeAt(i + 1));
    // A lone surrogate is written as U+FFFD, 3 bytes.
    const size = c < 0x80 ? 1 : c < 0x800 ? 2 : pair ? 4 : 3;
    if (cutAt < 0 && bytes + size > room) cutAt = i;
    bytes += size;
    if (bytes > maxBytes) return `${flatCopy(text.slice(0, cutAt))}…`;
    if (pair) i++;
  }
  return text;
}

function isLowSurrogate(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}

/**
 * `text` within `max` UTF-16 units, marked when cut: itself when short enough, else its first
 * units (by {@link cutText}) ending in `…`, `max` in all at most. Pure.
 */
export function cutTextMarked(text: string, max: number): string {
  return text.length <= max ? text : `${cutText(text, max - 1)}…`;
}
