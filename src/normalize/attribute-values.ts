import type { AttributeValue, Attributes } from '../ingest/span-digest.js';

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
 */
export function parseMaybeJson(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  // The first character after leading whitespace, found without copying the string (JSON.parse
  // skips surrounding whitespace itself).
  let i = 0;
  let first = value.charCodeAt(0);
  while (first === 32 || first === 10 || first === 13 || first === 9) first = value.charCodeAt(++i);
  if (first !== 123 /* { */ && first !== 91 /* [ */ && first !== 34 /* " */) return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
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
    if (!key.startsWith(dotted)) continue;
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

/**
 * The prefixes under which `attributes` has indexed keys: `llm.output_messages` for
 * `llm.output_messages.0.message.role`, also `message.tool_calls` for nested records. Computed
 * once per attributes object.
 */
function indexedPrefixes(attributes: Attributes): ReadonlySet<string> {
  let found = prefixCache.get(attributes);
  if (found) return found;
  for (const key in attributes) {
    let dot = key.indexOf('.');
    while (dot !== -1) {
      const code = key.charCodeAt(dot + 1);
      if (code >= 48 && code <= 57) (found ??= new Set()).add(key.slice(0, dot));
      dot = key.indexOf('.', dot + 1);
    }
  }
  // Most spans have none: they share one empty set and are not remembered (a scan of their few
  // keys costs less than a WeakMap entry).
  if (!found) return NO_PREFIXES;
  prefixCache.set(attributes, found);
  return found;
}

const NO_PREFIXES: ReadonlySet<string> = new Set();
