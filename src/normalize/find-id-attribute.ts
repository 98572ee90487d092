import type { Attributes, SpanDigest } from '../ingest/span-digest.js';
import { isRecord, parseMaybeJson, stringAttribute } from './attribute-values.js';

/** Where an id (a test case's, a session's) was read: the attribute asked for, and the JSON attribute and key it was in. */
export interface IdSource {
  id: string;
  /** The name asked for, e.g. `metadata.testCaseId`. */
  attribute: string;
  /** When no attribute has the whole name: the JSON-object attribute (`metadata`) and the key in it (`testCaseId`). */
  inJson?: { attribute: string; key: string };
}

/**
 * The id an attribute name finds on one span: the attribute of that whole name, else
 * (for a dotted name) the key inside a JSON-object attribute: `metadata.testCaseId` finds
 * `testCaseId` in `metadata = '{"testCaseId":"x"}'` (or in a key-value list value), trying the
 * longest attribute name first (`a.b` holding `{"c":…}` before `a` holding `{"b":{"c":…}}` or
 * `{"b.c":…}`). A string (non-empty) or a number; anything else is no id.
 */
export function readIdAttribute(
  attributes: Attributes,
  name: string,
): { id: string; inJson?: { attribute: string; key: string } } | undefined {
  const direct = stringAttribute(attributes, name);
  if (direct !== undefined) return { id: direct };
  for (const { attribute, key } of holdersOf(name)) {
    const holder = attributes[attribute];
    if (holder === undefined || holder === null) continue;
    if (typeof holder === 'string' && !holder.trimStart().startsWith('{')) continue;
    const id = idAt(parseMaybeJson(holder), key);
    if (id !== undefined) return { id, inJson: { attribute, key } };
  }
  return undefined;
}

const holdersCache = new Map<string, ReadonlyArray<{ attribute: string; key: string }>>();

/**
 * The JSON attributes a dotted name may be inside, longest first, with the key in each: made once
 * per name (sliced strings are new strings, and each lookup with one would hash it again).
 */
function holdersOf(name: string): ReadonlyArray<{ attribute: string; key: string }> {
  let holders = holdersCache.get(name);
  if (!holders) {
    const list: Array<{ attribute: string; key: string }> = [];
    for (let dot = name.lastIndexOf('.'); dot > 0; dot = name.lastIndexOf('.', dot - 1))
      list.push({ attribute: name.slice(0, dot), key: name.slice(dot + 1) });
    holders = list;
    if (holdersCache.size < 1000) holdersCache.set(name, holders);
  }
  return holders;
}

/** The string or number at `path` in a parsed object: the whole path as one key, else split at dots. */
function idAt(value: unknown, path: string): string | undefined {
  if (!isRecord(value)) return undefined;
  const whole = value[path];
  if (typeof whole === 'string' && whole !== '') return whole;
  if (typeof whole === 'number') return String(whole);
  const dot = path.indexOf('.');
  return dot === -1 ? undefined : idAt(value[path.slice(0, dot)], path.slice(dot + 1));
}

/**
 * The id a trace carries under one of `keys` (a test case id, a session id), with where it was
 * read. For each name in order: the root span's attribute of that name, then any span's; then,
 * when `readsJson(name)`, the same inside JSON-object attributes ({@link readIdAttribute}), so a
 * name found whole anywhere wins over one found in JSON.
 */
export function findIdAttribute(
  spans: readonly SpanDigest[],
  root: SpanDigest | undefined,
  keys: readonly string[],
  readsJson: (key: string) => boolean,
): IdSource | undefined {
  // Direct reads, key by key: walking each span's own keys instead was measured slower.
  for (const key of keys) {
    const fromRoot = root ? stringAttribute(root.attributes, key) : undefined;
    if (fromRoot !== undefined) return { id: fromRoot, attribute: key };
    for (const span of spans) {
      const value = stringAttribute(span.attributes, key);
      if (value !== undefined) return { id: value, attribute: key };
    }
    if (!key.includes('.') || !readsJson(key)) continue;
    const found = (root && readIdAttribute(root.attributes, key)) ?? inJsonOfAny(spans, key);
    if (found) return { ...found, attribute: key };
  }
  return undefined;
}

function inJsonOfAny(
  spans: readonly SpanDigest[],
  key: string,
): ReturnType<typeof readIdAttribute> {
  for (const span of spans) {
    const found = readIdAttribute(span.attributes, key);
    if (found) return found;
  }
  return undefined;
}
