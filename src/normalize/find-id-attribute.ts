import { readAttributes } from '../ingest/read-attributes.js';
import { isUnreadKey } from '../ingest/unread-attributes.js';
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
  return direct !== undefined ? { id: direct } : readIdInJson(attributes, name);
}

/** The JSON half of {@link readIdAttribute}: the id a dotted name finds inside a JSON-object attribute. */
function readIdInJson(
  attributes: Attributes,
  name: string,
): { id: string; inJson: { attribute: string; key: string } } | undefined {
  const found = readInJsonAttribute(attributes, name, idOf);
  return found && { id: found.value, inJson: found.inJson };
}

/**
 * The value a dotted name finds inside a JSON-object attribute of one span, as `pick` takes it:
 * `metadata.session_end` finds `session_end` in `metadata = '{"session_end":true}'` (or in a
 * key-value list value), trying the longest attribute name first (`a.b` holding `{"c":…}` before
 * `a` holding `{"b":{"c":…}}` or `{"b.c":…}`); in each, the whole key first, then split at dots.
 * `pick` says what counts (a non-empty string or a number for an id); anything else is passed
 * over. Each holder is parsed whole: the caller bounds how many it asks.
 */
export function readInJsonAttribute<T>(
  attributes: Attributes,
  name: string,
  pick: (value: unknown) => T | undefined,
): { value: T; inJson: { attribute: string; key: string } } | undefined {
  for (const { attribute, key } of holdersOf(name)) {
    const holder = attributes[attribute];
    if (holder === undefined || holder === null) continue;
    if (typeof holder === 'string' && !holder.trimStart().startsWith('{')) continue;
    const value = valueAt(parseMaybeJson(holder), key, pick);
    if (value !== undefined) return { value, inJson: { attribute, key } };
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

/** What `pick` takes at `path` in a parsed object: the whole path as one key, else split at dots. */
function valueAt<T>(
  value: unknown,
  path: string,
  pick: (value: unknown) => T | undefined,
): T | undefined {
  if (!isRecord(value)) return undefined;
  const whole = pick(value[path]);
  if (whole !== undefined) return whole;
  const dot = path.indexOf('.');
  return dot === -1 ? undefined : valueAt(value[path.slice(0, dot)], path.slice(dot + 1), pick);
}

/** A value as an id: a non-empty string, or a number as text. */
function idOf(value: unknown): string | undefined {
  if (typeof value === 'string' && value !== '') return value;
  if (typeof value === 'number') return String(value);
  return undefined;
}

/**
 * Names an id is read from, in order of precedence, each with whether it is also looked for inside
 * JSON-object attributes ({@link readIdAttribute}). Made by {@link idNames}, once per list.
 */
export interface IdNames {
  readonly keys: readonly string[];
  readonly inJson: readonly boolean[];
  /** Per key: in an unread family (`isUnreadKey`), so read from a span's whole attributes. */
  readonly unread: readonly boolean[];
  /**
   * The attribute names a span must hold to answer any key from its read attributes: the keys
   * outside unread families, and the JSON holders (`metadata` for `metadata.testCaseId`) of those
   * read inside JSON.
   */
  readonly held: ReadonlySet<string>;
  /** Whether any key is in an unread family: then every span is asked. */
  readonly anyUnread: boolean;
}

/** `keys` as {@link findIdAttributes} reads them: the dotted names `readsJson` picks also inside JSON. */
export function idNames(keys: readonly string[], readsJson: (key: string) => boolean): IdNames {
  const inJson = keys.map(k => k.includes('.') && readsJson(k));
  const unread = keys.map(isUnreadKey);
  const held = new Set<string>();
  keys.forEach((key, i) => {
    if (unread[i]) return;
    held.add(key);
    if (inJson[i]) for (const { attribute } of holdersOf(key)) held.add(attribute);
  });
  return { keys, inJson, unread, held, anyUnread: unread.includes(true) };
}

/**
 * The id a trace carries under each list of names (a test case id, a session id; a plan's lists
 * of each), with where it was read, all in one walk over the spans: the root first, then the
 * others in order. For each name of a list in order: the root span's attribute of that name, then
 * any span's; then, for a name read inside JSON, the same inside JSON-object attributes
 * ({@link readIdAttribute}), so a name found whole anywhere wins over one found in JSON. Each list
 * keeps that precedence as a rank, 2 × the name's position (+1 inside JSON): a span is asked only
 * for the names that would better what its list has found so far, so a list answered by its first
 * name on the root reads no other span, and a trace without ids costs what one walk per name
 * cost, in one walk.
 *
 * A span is asked for names only when its read attributes hold one of them, or a JSON holder of
 * one (`IdNames.held`): its keys are enumerated once against every list's names in one set,
 * instead of every name being looked up in its attributes (each a megamorphic keyed load, nearly
 * always of a missing key: about 3,500 instructions a span for the 20 default names). A call's
 * work is one enumeration of each span it reads, with a set lookup per key, however many lists it
 * asks: of the order of what decoding the span cost (an object of more than about a hundred keys
 * is enumerated from a list of its keys V8 makes and sorts first). So a caller asks every list it
 * has in one call: `readTraceIds` a trace's, `scoreSession` each turn's, not a call per suite. A
 * list with a name in an unread family asks every span, as that name is read from the whole
 * attributes.
 */
export function findIdAttributes(
  spans: readonly SpanDigest[],
  root: SpanDigest | undefined,
  lists: readonly IdNames[],
): Array<IdSource | undefined> {
  // Sized once (a push onto an empty list reserved 17 slots).
  const found = new Array<IdSource | undefined>(lists.length).fill(undefined);
  const ranks = new Array<number>(lists.length);
  // Only a list answered by its first name whole is settled; any other may yet find better.
  let settled = true;
  for (let q = 0; q < lists.length; q++) {
    ranks[q] = root ? readSpan(root, lists[q]!, Infinity, found, q) : Infinity;
    settled &&= ranks[q] === 0;
  }
  if (settled) return found;
  const asked = namesOfAll(lists);
  // An index loop: a for-of left an iterator result per span.
  for (let s = 0; s < spans.length; s++) {
    const span = spans[s]!;
    if (span === root || !holdsAnyName(span, asked)) continue;
    let open = false;
    for (let q = 0; q < lists.length; q++) {
      const rank = ranks[q]!;
      if (rank === 0) continue;
      ranks[q] = readSpan(span, lists[q]!, rank, found, q);
      open ||= ranks[q]! > 0;
    }
    if (!open) break;
  }
  return found;
}

/** What {@link holdsAnyName} asks a span: the names and holders of several lists, in one set. */
type NamesAsked = Pick<IdNames, 'held' | 'anyUnread'>;

const askedOf = new WeakMap<readonly IdNames[], NamesAsked>();

/**
 * The lists' `held` names in one set, made once per array of lists: a plan's array is kept
 * (`readTraceIds`); an array made for one call (`inspectTrace`'s) makes its set each call.
 */
function namesOfAll(lists: readonly IdNames[]): NamesAsked {
  if (lists.length === 1) return lists[0]!;
  let asked = askedOf.get(lists);
  if (!asked) {
    asked = {
      held: new Set(lists.flatMap(l => [...l.held])),
      anyUnread: lists.some(l => l.anyUnread),
    };
    askedOf.set(lists, asked);
  }
  return asked;
}

/**
 * Whether `span` may hold an id of any list: its read attributes hold a name of one or a JSON
 * holder of one, or a list has a name in an unread family. One set lookup per attribute, however
 * many lists (a settled list's names count too: such a span is then read as it was before).
 */
function holdsAnyName(span: SpanDigest, asked: NamesAsked): boolean {
  if (asked.anyUnread) return true;
  const attributes = readAttributes(span);
  for (const key in attributes) if (asked.held.has(key)) return true;
  return false;
}

/**
 * The best id `span` holds for `names` at a rank below `limit`: its rank, with the id put in
 * `found[q]`; `limit` when it holds none. Ranks only fall, and a later span replaces an answer only
 * with a lower rank, so at one rank the root wins, then the earliest span.
 */
function readSpan(
  span: SpanDigest,
  names: IdNames,
  limit: number,
  found: Array<IdSource | undefined>,
  q: number,
): number {
  const { keys, inJson } = names;
  // Read when a name outside the unread families first asks: a span whose whole attributes a
  // name in a family read first is not decoded a second time, in part.
  let read: Attributes | undefined;
  for (let i = 0; i < keys.length && 2 * i < limit; i++) {
    const key = keys[i]!;
    // Names come from configuration: one in an unread family is read from the whole attributes.
    const attributes = names.unread[i] ? span.attributes : (read ??= readAttributes(span));
    const direct = stringAttribute(attributes, key);
    if (direct !== undefined) {
      found[q] = { id: direct, attribute: key };
      return 2 * i;
    }
    if (!inJson[i] || 2 * i + 1 >= limit) continue;
    const fromJson = readIdInJson(attributes, key);
    if (fromJson) {
      found[q] = { ...fromJson, attribute: key };
      return 2 * i + 1;
    }
  }
  return limit;
}
