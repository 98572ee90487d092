import type { AttributeValue, Attributes } from '../ingest/span-digest.js';
import { INPUT_BOUNDS, inputBoundHits } from './input-bounds.js';

/** The attribute as a non-empty string, or `undefined`. Numbers are stringified (ids may be ints). */
export function stringAttribute(attributes: Attributes, key: string): string | undefined {
  const value = attributes[key];
  if (typeof value === 'string') return value === '' ? undefined : value;
  if (typeof value === 'number') return String(value);
  return undefined;
}

/**
 * Parses a value that may hold JSON: a string that is JSON becomes the parsed value, any other
 * string stays a string, structured values (`kvlistValue`, `arrayValue`) are returned as they are.
 *
 * Bounded (the text is untrusted): a text longer than `INPUT_BOUNDS.maxJsonChars`, or whose
 * objects and arrays nest deeper than `INPUT_BOUNDS.maxJsonDepth`, is not parsed and stays a
 * string, counted in `inputBoundHits` (`longJson`, `deepJson`): `scoreTrace` then gives the run an
 * `input_bounded` diagnostic. The depth is found by one scan of the text before parsing.
 * `maxDepth` is for a reader whose values have bounds of their own, checked on the parsed value
 * (tool definitions: a schema's depth is `SCHEMA_LIMITS`' to judge, and says so in the result).
 */
export function parseMaybeJson(
  value: unknown,
  maxDepth: number = INPUT_BOUNDS.maxJsonDepth,
): unknown {
  if (typeof value !== 'string') return value;
  // The first character after leading whitespace, found without copying the string (JSON.parse
  // skips surrounding whitespace itself).
  let i = 0;
  let first = value.charCodeAt(0);
  while (first === 32 || first === 10 || first === 13 || first === 9) first = value.charCodeAt(++i);
  if (first !== 123 /* { */ && first !== 91 /* [ */ && first !== 34 /* " */) return value;
  const past = pastJsonBounds(value, i, maxDepth);
  if (past !== undefined) {
    inputBoundHits[past === 'long' ? 'longJson' : 'deepJson']++;
    return value;
  }
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}

/**
 * Which of `INPUT_BOUNDS`' limits keeps JSON text `text` (read from `from`) unparsed by
 * {@link parseMaybeJson}: `long` past `maxJsonChars`, `deep` nested past `maxDepth`; `undefined`
 * when it is within both. A reader asks it of text {@link parseMaybeJson} left as it was, to tell
 * text too large to read from text that is no JSON.
 */
export function pastJsonBounds(
  text: string,
  from = 0,
  maxDepth: number = INPUT_BOUNDS.maxJsonDepth,
): 'long' | 'deep' | undefined {
  if (text.length > INPUT_BOUNDS.maxJsonChars) return 'long';
  if (text.length - from > maxDepth && nestsDeeper(text, from, maxDepth)) return 'deep';
  return undefined;
}

/**
 * Whether the objects and arrays of JSON text `text` (from `from`) nest deeper than `max`: brackets
 * inside strings do not count. One pass, no allocation; stops at the first bracket past `max`.
 */
function nestsDeeper(text: string, from: number, max: number): boolean {
  let depth = 0;
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      for (i++; i < text.length; i++) {
        const s = text.charCodeAt(i);
        if (s === 92 /* \ */) i++;
        else if (s === 34) break;
      }
    } else if (c === 123 /* { */ || c === 91 /* [ */) {
      if (++depth > max) return true;
    } else if (c === 125 /* } */ || c === 93 /* ] */) depth--;
  }
  return false;
}

/** The attribute parsed with {@link parseMaybeJson}; `undefined` when absent or null. */
export function jsonAttribute(attributes: Attributes, key: string): unknown {
  const value = attributes[key];
  return value === undefined || value === null ? undefined : parseMaybeJson(value);
}

/**
 * Collects flattened, indexed attributes (`prefix.0.x`, `prefix.1.x`, …) into an array of
 * records keyed by the rest of the key: `llm.output_messages.0.message.role` under the prefix
 * `llm.output_messages` becomes `[{ 'message.role': … }]`. Holes are dropped; order is by index.
 *
 * `prefix` is a key's first indexed level: it has no `.` followed by a digit (a nested level is
 * read from the records returned, `message.tool_calls` of each message). Keys longer than
 * `INPUT_BOUNDS.maxIndexedKeyChars` are not read (counted in `inputBoundHits.longIndexedKeys`, see
 * `indexedPrefixes`).
 */
export function indexedAttributes(
  attributes: Attributes,
  prefix: string,
): Array<Record<string, AttributeValue>> {
  // Most spans have no indexed attributes at all; one key scan per span answers every prefix.
  if (!indexedPrefixes(attributes).has(prefix)) return [];
  const dotted = `${prefix}.`;
  const byIndex = new Map<number, Record<string, AttributeValue>>();
  for (const key in attributes) {
    if (key.length > INPUT_BOUNDS.maxIndexedKeyChars || !key.startsWith(dotted)) continue;
    const rest = key.slice(dotted.length);
    const dot = rest.indexOf('.');
    const indexText = dot === -1 ? rest : rest.slice(0, dot);
    if (!/^\d+$/.test(indexText)) continue;
    const index = Number(indexText);
    let entry = byIndex.get(index);
    if (!entry) byIndex.set(index, (entry = {}));
    entry[dot === -1 ? '' : rest.slice(dot + 1)] = attributes[key]!;
  }
  return [...byIndex.entries()].sort((a, b) => a[0] - b[0]).map(([, entry]) => entry);
}

/** True for a plain object (not an array, not null). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const prefixCache = new WeakMap<Attributes, Set<string>>();

/** Keys of an attributes object past which its scan is remembered even when it found nothing. */
const REMEMBER_FROM_KEYS = 64;

/**
 * The prefixes under which `attributes` has indexed keys, each key's first indexed level:
 * `llm.output_messages` for `llm.output_messages.0.message.tool_calls.0.tool_call.id` (the nested
 * `message.tool_calls` is found in the message's own record). Computed once per attributes object.
 *
 * Work is linear in the keys' characters, at most `INPUT_BOUNDS.maxIndexedKeyChars` a key: one
 * prefix a key, and a longer key is skipped, counted in `inputBoundHits.longIndexedKeys` when its
 * first characters hold a `.` followed by a digit. Every prefix of every key, as this once took,
 * hashed a string per dot: one 800 KB key of dotted digits took 350 ms.
 */
function indexedPrefixes(attributes: Attributes): ReadonlySet<string> {
  let found = prefixCache.get(attributes);
  if (found) return found;
  const max = INPUT_BOUNDS.maxIndexedKeyChars;
  let keys = 0;
  for (const key in attributes) {
    keys++;
    const long = key.length > max;
    for (let dot = key.indexOf('.'); dot !== -1 && dot < max; dot = key.indexOf('.', dot + 1)) {
      const code = key.charCodeAt(dot + 1);
      if (code < 48 || code > 57) continue;
      if (long) inputBoundHits.longIndexedKeys++;
      else (found ??= new Set()).add(key.slice(0, dot));
      break;
    }
  }
  // Most spans have none: they share one empty set and are not remembered (a scan of their few
  // keys costs less than a WeakMap entry); a span of many keys is scanned once.
  if (!found) {
    if (keys > REMEMBER_FROM_KEYS) prefixCache.set(attributes, NO_PREFIXES as Set<string>);
    return NO_PREFIXES;
  }
  prefixCache.set(attributes, found);
  return found;
}

const NO_PREFIXES: ReadonlySet<string> = new Set();
