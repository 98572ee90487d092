import type { Attributes } from '../ingest/span-digest.js';
import { parseMaybeJson } from './attribute-values.js';

/**
 * The JSON text each object or array {@link contentAttribute} parsed was read from, by the parsed
 * value itself: wherever a call's arguments travel (a requested call's kept over an executed
 * one's, see `absorbCall`), their text goes with them, and a value nothing holds any more lets
 * its text go. Nothing in the pipeline changes a parsed value in place; a custom scorer may, and
 * the values it is handed are forgotten first (`forgetSourceText`).
 */
const SOURCES = new WeakMap<object, string>();

/**
 * Characters of JSON text kept at most: more than any store copies (`MAX_CONTENT_CHARS`, 2,000,
 * is held below it by a test), so a long text is not held twice, as the span's attribute and by
 * a value kept past its spans (a run waiting for its judge pass, a session).
 */
export const MAX_SOURCE_TEXT_CHARS = 4096;

/**
 * A tool call's arguments or result attribute read as `jsonAttribute` reads it (bounded as
 * `parseMaybeJson` is), and, when its JSON text became an object or an array, that text kept for
 * {@link jsonSourceText}: a store that writes the value as JSON can copy the text rather than
 * write the value again, key by key.
 */
export function contentAttribute(attributes: Attributes, key: string): unknown {
  const text = attributes[key];
  if (text === undefined || text === null) return undefined;
  const value = parseMaybeJson(text);
  if (
    typeof value === 'object' &&
    value !== null &&
    typeof text === 'string' &&
    text.length <= MAX_SOURCE_TEXT_CHARS
  )
    SOURCES.set(value, text);
  return value;
}

/**
 * Lets go of the text `value` was parsed from: from now on {@link jsonSourceText} has none, and a
 * store writes the value itself. For a value handed to code that may change it in place (a
 * custom scorer), whose text would then no longer be the value's.
 */
export function forgetSourceText(value: unknown): void {
  if (typeof value === 'object' && value !== null) SOURCES.delete(value);
}

/**
 * {@link forgetSourceText} for every call's arguments (as run and as requested) and result: what
 * a trace's calls hold that code outside spanscore may change, before it is handed them.
 */
export function forgetCallSourceTexts(
  calls: ReadonlyArray<{ arguments?: unknown; requestedArguments?: unknown; result?: unknown }>,
): void {
  for (const call of calls) {
    forgetSourceText(call.arguments);
    forgetSourceText(call.requestedArguments);
    forgetSourceText(call.result);
  }
}

/**
 * The JSON text `value` was parsed from by {@link contentAttribute}, as it came: JSON that
 * `JSON.parse` read whole to this value, with the sender's spacing, key order, duplicate keys and
 * escapes (so not `JSON.stringify`'s text of it: the same value when parsed). `undefined` for
 * any other value.
 */
export function jsonSourceText(value: unknown): string | undefined {
  return typeof value === 'object' && value !== null ? SOURCES.get(value) : undefined;
}
