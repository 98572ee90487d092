import type { StoredResult } from './stored-result.js';
import { JsonTextWriter, type EncodedJsonKey } from './json-text-writer.js';
import { hasOwnKey } from '../normalize/has-own-key.js';

/**
 * A stored result's compact JSON (results layout 2's first line of a pass in the Redis stream, and
 * how the memory store holds its results): the result's JSON without the fields at their
 * defaults ({@link DEFAULTS}, and `failingAgents` empty beside `agents`), its `toolSequence` as
 * indices into its `toolsUsed` when every name is there (an array of numbers: tool names are
 * strings, so never ambiguous). Read back by {@link expandCompactResult}, field for field and in
 * the order `toStoredResults` writes them.
 */
const DEFAULTS: ReadonlyMap<string, unknown> = new Map<string, unknown>([
  ['targetKind', 'test_case'],
  ['scorerKind', 'deterministic'],
  ['phase', 'all'],
  ['status', 'scored'],
  ['score', null],
  ['label', null],
  ['expectedTools', null],
  ['serviceVersion', null],
  ['deploymentEnvironment', null],
  ['agentName', null],
  ['judgeCostUsd', null],
]);

/** StoredResult's fields in the order `toStoredResults` writes them (the store's `id` first). */
const FIELD_ORDER: ReadonlyArray<keyof StoredResult> = [
  'id',
  'timeUnixMs',
  'traceId',
  'targetKind',
  'suite',
  'testCaseId',
  'scorer',
  'scorerKind',
  'scorerVersion',
  'phase',
  'status',
  'score',
  'label',
  'reason',
  'expectedTools',
  'toolSequence',
  'toolsUsed',
  'serviceName',
  'serviceVersion',
  'deploymentEnvironment',
  'agentName',
  'agents',
  'failingAgents',
  'judgeCostUsd',
  'sessionId',
  'sessionPart',
  'failingTurn',
  'cut',
];

/** What {@link writeCompact} knows of a result's field: its key's bytes, and its default. */
interface KnownField {
  key: EncodedJsonKey;
  /** Whether the field holds names, or a list of them (see {@link NAME_FIELDS}). */
  names: boolean;
  /** Whether {@link DEFAULTS} has the field (its default is then `default`). */
  defaulted: boolean;
  default: unknown;
}

/**
 * The fields whose values are names a process writes again and again, or lists of them: written
 * with `JsonTextWriter.name`, their bytes copied once kept. Not `testCaseId`: a suite has as many
 * as it has cases, each one the name of a few results, and they would take the process's 512
 * kept names from those that recur (it is written as any string is, the same text).
 */
const NAME_FIELDS: ReadonlySet<string> = new Set<keyof StoredResult>([
  'targetKind',
  'suite',
  'scorer',
  'scorerKind',
  'scorerVersion',
  'phase',
  'status',
  'label',
  'expectedTools',
  'toolsUsed',
  'serviceName',
  'serviceVersion',
  'deploymentEnvironment',
  'agentName',
  'agents',
  'failingAgents',
]);

/**
 * {@link FIELD_ORDER}'s fields known: one map lookup a field written, where the defaults' two
 * lookups and the key written a character at a time were about 1,000 instructions a field
 * (41,600 a result; `npm run bench -- --instruction-profile`).
 */
const KNOWN_FIELDS: ReadonlyMap<string, KnownField> = new Map(
  FIELD_ORDER.map(name => [
    name,
    {
      key: JsonTextWriter.encodeKey(name),
      names: NAME_FIELDS.has(name),
      defaulted: DEFAULTS.has(name),
      default: DEFAULTS.get(name),
    },
  ]),
);

/** The writer of {@link compactResultJson}'s texts (one at a time: nothing it writes waits). */
const writer = new JsonTextWriter();

/**
 * A result's compact JSON (see above): its own JSON, the fields at their defaults left out as it is
 * written (no copy of the result; `undefined` fields are left out too, as JSON does). A result's
 * fields are flat (strings, numbers, arrays of them): a nested object's keys would be read as its.
 * Pure. Written by a {@link JsonTextWriter} (the string alone allocated: a third of what
 * `JSON.stringify` with a replacer allocated), or, for a result with a nested object or anything
 * the writer leaves to it, by `JSON.stringify` with {@link compactField}: the same text.
 */
export function compactResultJson(result: Partial<StoredResult>): string {
  return writer.text(result, writeCompact, stringifyCompact);
}

/** `JSON.stringify` of {@link compactResultJson}. */
function stringifyCompact(result: Partial<StoredResult>): string {
  return JSON.stringify(result, compactField);
}

/**
 * Writes {@link compactResultJson}'s text of `result`, the fields {@link compactField} keeps;
 * false (nothing to take) for a result whose text it leaves to {@link stringifyCompact}: one with
 * a `toJSON`, a field holding an object or an array holding one (the replacer would read its keys
 * too), or a tool sequence that is no array.
 */
function writeCompact(w: JsonTextWriter, result: Partial<StoredResult>): boolean {
  if (typeof (result as { toJSON?: unknown }).toJSON === 'function') return false;
  w.raw('{');
  let first = true;
  for (const key in result) {
    if (!hasOwnKey(result, key)) continue;
    const value = result[key as keyof StoredResult] as unknown;
    if (!JsonTextWriter.writes(value)) continue;
    const known = KNOWN_FIELDS.get(key);
    if (known === undefined ? leftOut(result, key, value) : knownLeftOut(result, known, key, value))
      continue;
    if (typeof value === 'object' && value !== null && !isFlatArray(value)) return false;
    if (key === 'toolSequence' && !isSequence(value, result.toolsUsed)) return false;
    if (known === undefined) w.key(key, first);
    else w.encodedKey(known.key, first);
    first = false;
    if (key === 'toolSequence') writeSequence(w, value as string[], result.toolsUsed);
    else if (known?.names) w.names(value);
    else w.value(value);
  }
  w.raw('}');
  return true;
}

/** Whether `value` is an array of no objects (what the replacer returns as it is). */
function isFlatArray(value: object): boolean {
  if (!Array.isArray(value)) return false;
  for (const v of value as unknown[]) if (typeof v === 'object' && v !== null) return false;
  return true;
}

/** Whether a tool sequence and the names it is read against are arrays (as results hold). */
function isSequence(seq: unknown, used: unknown): boolean {
  return Array.isArray(seq) && (used === undefined || Array.isArray(used));
}

/** {@link compactSequence}'s array written, without the array of indices made. */
function writeSequence(w: JsonTextWriter, seq: string[], used: readonly string[] = []): void {
  for (const name of seq) if (!used.includes(name)) return w.value(seq);
  w.raw('[');
  for (let i = 0; i < seq.length; i++) {
    if (i > 0) w.raw(',');
    w.number(used.indexOf(seq[i]!));
  }
  w.raw(']');
}

/** `JSON.stringify`'s replacer of {@link compactResultJson}: `holder` is the result (or an array). */
function compactField(this: unknown, key: string, value: unknown): unknown {
  if (Array.isArray(this)) return value;
  const result = this as Partial<StoredResult>;
  if (key === 'toolSequence') return compactSequence(value as string[], result.toolsUsed);
  return leftOut(result, key, value) ? undefined : value;
}

/** Whether a field's value is left out of the compact JSON (a default). */
function leftOut(result: Partial<StoredResult>, key: string, value: unknown): boolean {
  // A map: a record's `Object.hasOwn` and keyed load were two calls a field written.
  if (DEFAULTS.get(key) === value && DEFAULTS.has(key)) return true;
  return key === 'failingAgents' && !!result.agents && (value as string[]).length === 0;
}

/** {@link leftOut} of a field {@link KNOWN_FIELDS} knows (the same answer, no lookup). */
function knownLeftOut(
  result: Partial<StoredResult>,
  known: KnownField,
  key: string,
  value: unknown,
): boolean {
  if (known.defaulted && known.default === value) return true;
  return key === 'failingAgents' && !!result.agents && (value as string[]).length === 0;
}

/** A tool sequence as indices into `used` when every name is there, else as it is. */
function compactSequence(seq: string[], used: readonly string[] = []): string[] | number[] {
  if (seq.length === 0) return seq;
  const indices = new Array<number>(seq.length);
  for (let i = 0; i < seq.length; i++) {
    const n = used.indexOf(seq[i]!);
    if (n < 0) return seq;
    indices[i] = n;
  }
  return indices;
}

/**
 * A parsed compact result with its defaults and tool names back, in {@link FIELD_ORDER} (fields
 * a later release may add after). Changes nothing in `fields`.
 */
export function expandCompactResult(fields: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of FIELD_ORDER) {
    if (key in fields) out[key] = fields[key];
    else if (DEFAULTS.has(key)) out[key] = DEFAULTS.get(key);
    else if (key === 'failingAgents' && fields.agents) out[key] = [];
  }
  for (const key of Object.keys(fields)) if (!(key in out)) out[key] = fields[key];
  const seq = out.toolSequence;
  if (Array.isArray(seq) && typeof seq[0] === 'number') {
    const used = Array.isArray(out.toolsUsed) ? (out.toolsUsed as unknown[]) : [];
    out.toolSequence = seq.map(i => used[i as number]);
  }
  return out;
}

/** A result's fields in {@link FIELD_ORDER}, then any other (written by a later release) after. */
export function inResultFieldOrder(fields: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of FIELD_ORDER) if (key in fields) out[key] = fields[key];
  for (const key of Object.keys(fields)) if (!(key in out)) out[key] = fields[key];
  return out;
}
