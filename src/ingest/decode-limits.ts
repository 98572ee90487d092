import {
  DEFAULT_DECODE_LIMITS,
  DEFAULT_MAX_BODY_BYTES,
  type DecodeLimits,
} from '../config/decode-limit-defaults.js';
import { SpanscoreError } from '../errors/spanscore-error.js';

// The limits and their defaults are the `receiver` settings' (`receiver.maxBodyBytes`,
// `maxSpansPerRequest`, `maxItemsPerRequest`): defined with the config, below both it and ingest.
export { DEFAULT_DECODE_LIMITS, DEFAULT_MAX_BODY_BYTES, type DecodeLimits };

/** The error a decoder throws when a request passes `limits.maxSpans`. */
export function tooManySpans(limits: Readonly<DecodeLimits>): SpanscoreError {
  return new SpanscoreError(
    'SS_TRACE_INPUT_TOO_LARGE',
    `the request holds more than ${limits.maxSpans} spans (receiver.maxSpansPerRequest): send smaller batches`,
  );
}

/** The error a logs decoder throws when a request holds more than `limits.maxSpans` records. */
export function tooManyLogRecords(limits: Readonly<DecodeLimits>): SpanscoreError {
  return new SpanscoreError(
    'SS_TRACE_INPUT_TOO_LARGE',
    `the request holds more than ${limits.maxSpans} log records (receiver.maxSpansPerRequest bounds log records too): send smaller batches`,
  );
}

/** The error a decoder throws when a request passes `limits.maxItems`. */
export function tooManyItems(limits: Readonly<DecodeLimits>): SpanscoreError {
  return new SpanscoreError(
    'SS_TRACE_INPUT_TOO_LARGE',
    `the request holds more than ${limits.maxItems} nested items (resources, scopes, spans, events, attributes and values; receiver.maxItemsPerRequest): send smaller batches`,
  );
}

/**
 * `error` (a limit passed) with where decoding stopped appended: `byte` of the `length` bytes of
 * the (decompressed) body. How little of an amplified body was read before the refusal is then in
 * the 413's message, for the sender and for tests that count work instead of timing it.
 */
export function stoppedAt(error: SpanscoreError, byte: number, length: number): SpanscoreError {
  return new SpanscoreError(error.code, `${error.message} (refused at byte ${byte} of ${length})`, {
    location: error.location,
    cause: error,
  });
}

/**
 * Counts the items of a JSON text and throws `SS_TRACE_INPUT_TOO_LARGE` past `limits.maxItems`,
 * before `JSON.parse` builds them: each object and array; each element of an array that is not
 * one (a number, string, boolean or null: OTLP/JSON has none, its lists hold objects); and each
 * member of an object past its 64th (OTLP/JSON's objects have a dozen at most). Containers alone
 * let a 65 KB gzip body of one flat array of 33.5 million numbers through as 3 items, and four of
 * those at once ran `serve` out of heap. Strings are skipped whole (what is in them is not
 * counted). A text of at most `maxItems` characters is not scanned: every item takes one.
 */
export function checkJsonItems(text: Uint8Array | string, limits: Readonly<DecodeLimits>): void {
  const max = limits.maxItems;
  // Ordinary requests (a few hundred kilobytes) are not scanned at all.
  if (text.length <= max) return;
  const scan = new JsonItemScan();
  if (typeof text === 'string') {
    for (let i = 0; i < text.length; i++)
      if (scan.feed(text.charCodeAt(i)) > max)
        throw stoppedAt(tooManyItems(limits), i, text.length);
    return;
  }
  for (let i = 0; i < text.length; i++)
    if (scan.feed(text[i]!) > max) throw stoppedAt(tooManyItems(limits), i, text.length);
}

/** Members of one object counted free: past them, each is an item. */
const FREE_MEMBERS = 64;

/**
 * The state of {@link checkJsonItems}' one pass, a character at a time: in a string or not (and
 * after a backslash in one), and for each open container whether it is an array and how many
 * members it has had. Malformed text is counted as far as it goes; `JSON.parse` then refuses it.
 */
class JsonItemScan {
  items = 0;
  private inString = false;
  private escaped = false;
  // Open containers, innermost last: -1 an array, else an object's members so far.
  private readonly open: number[] = [];
  // In an array, where an element may start (after `[` or `,`).
  private elementNext = false;

  feed(c: number): number {
    if (this.inString) {
      if (this.escaped) this.escaped = false;
      else if (c === 0x5c) this.escaped = true;
      else if (c === 0x22) this.inString = false;
      return this.items;
    }
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) return this.items;
    if (this.elementNext) {
      this.elementNext = false;
      // An element that is not a container (those count at their bracket), nor the array's end.
      if (c !== 0x7b && c !== 0x5b && c !== 0x5d) this.items++;
    }
    switch (c) {
      case 0x22:
        this.inString = true;
        break;
      case 0x7b:
        this.items++;
        this.open.push(0);
        break;
      case 0x5b:
        this.items++;
        this.open.push(-1);
        this.elementNext = true;
        break;
      case 0x7d:
      case 0x5d:
        this.open.pop();
        break;
      case 0x2c: {
        const top = this.open.length - 1;
        const inside = this.open[top];
        if (inside === -1) this.elementNext = true;
        else if (inside !== undefined && ++this.open[top]! >= FREE_MEMBERS) this.items++;
        break;
      }
    }
    return this.items;
  }
}
