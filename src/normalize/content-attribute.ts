import type { Attributes } from '../ingest/span-digest.js';
import { parseMaybeJson } from './attribute-values.js';

/**
 * The JSON text each object or array {@link contentAttribute} parsed was read from, by the parsed
 * value itself: wherever a call's arguments travel (a requested call's kept over an executed
 * one's, see `absorbCall`), their text goes with them, and a value nothing holds any more lets
 * its text go. Nothing in the pipeline changes a parsed value in place.
 */
const SOURCES = new WeakMap<object, string>();

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
  if (typeof value === 'object' && value !== null && typeof text === 'string')
    SOURCES.set(value, text);
  return value;
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
