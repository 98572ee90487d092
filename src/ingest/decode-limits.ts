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
 * Counts the objects and arrays of a JSON text (its `{` and `[` bytes, those inside strings
 * included, so never fewer than there are) and throws `SS_TRACE_INPUT_TOO_LARGE` past
 * `limits.maxItems`, before `JSON.parse` builds them: ten million `{}` in 30 MB would take
 * seconds and gigabytes to parse. A text of at most `maxItems` characters is not scanned.
 */
export function checkJsonItems(text: Uint8Array | string, limits: Readonly<DecodeLimits>): void {
  const max = limits.maxItems;
  // Every object or array takes at least one character: a text no longer than the limit cannot
  // pass it, and ordinary requests (a few hundred kilobytes) are not scanned at all.
  if (text.length <= max) return;
  let items = 0;
  if (typeof text === 'string') {
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if ((c === 0x7b || c === 0x5b) && ++items > max)
        throw stoppedAt(tooManyItems(limits), i, text.length);
    }
    return;
  }
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if ((c === 0x7b || c === 0x5b) && ++items > max)
      throw stoppedAt(tooManyItems(limits), i, text.length);
  }
}
