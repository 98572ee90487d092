import type { RunRecord, StoredToolCall, WrittenToolCall } from './stored-result.js';
import { SPANSCORE_ATTRIBUTES } from '../semconv/attributes.js';
import { JsonTextWriter } from './json-text-writer.js';

/** A run record's fields but its results and export (the run key's value holds those apart). */
export type RecordFields = Omit<RunRecord, 'results' | 'export'>;

/**
 * A run record's compact JSON: the Redis store's record line in results layout 2
 * (`results.layout: 2`; layout 1's line is the record's JSON as it is), and how the memory store
 * holds its records. The record's JSON with `"v":2`, its fields at
 * their defaults left out (nulls, empty lists, `contentKept: true`, state `scored`, the trace id
 * its key names, the test case id read from {@link DEFAULT_TEST_CASE_ATTRIBUTE}), its route's
 * agents without a handoff as their names alone, and its tool calls compact (`calls`, see
 * {@link encodeCalls}). Layout 1's line is the record's JSON as it is.
 */
const DEFAULTS: Partial<Record<keyof RecordFields, unknown>> = {
  state: 'scored',
  reason: null,
  testCaseId: null,
  testCaseIdAttribute: null,
  serviceVersion: null,
  deploymentEnvironment: null,
  diagnostics: [],
  matched: [],
  awaitingJudge: [],
  receivedAtUnixMs: null,
  contentKept: true,
};

/** The attribute a test case id is read from but when a suite names another. */
const DEFAULT_TEST_CASE_ATTRIBUTE = SPANSCORE_ATTRIBUTES.testCaseId;

/** The fields in the order `runRecordPatch` writes them, which a decoded record keeps. */
const FIELD_ORDER: ReadonlyArray<keyof RecordFields> = [
  'traceId',
  'state',
  'reason',
  'testCaseId',
  'testCaseIdAttribute',
  'serviceName',
  'serviceVersion',
  'deploymentEnvironment',
  'diagnostics',
  'matched',
  'awaitingJudge',
  'updatedAtUnixMs',
  'toolCalls',
  'contentKept',
  'session',
  'agents',
  'receivedAtUnixMs',
];

/** Whether a value is a default of {@link DEFAULTS}: the same, or both empty lists. */
function isDefault(value: unknown, fallback: unknown): boolean {
  if (Array.isArray(fallback)) return Array.isArray(value) && value.length === 0;
  return value === fallback;
}

/** What {@link compactRecordLine} is given: a pass's fields or a whole record's. */
type LineFields = Omit<RecordFields, 'receivedAtUnixMs' | 'toolCalls'> &
  Partial<Pick<RecordFields, 'receivedAtUnixMs'>> & { toolCalls: readonly WrittenToolCall[] };

/** How {@link compactRecordLine} writes a line. */
interface LineOptions {
  contentAsJson?: boolean;
  /** False: `receivedAtUnixMs` left out (a store holding it apart), as if null. */
  withReceived?: boolean;
}

/** A line to write: what the writer is handed (see {@link writeLine}). */
interface Line {
  fields: LineFields;
  key: string;
  contentAsJson: boolean;
  withReceived: boolean;
}

/** The writer of {@link compactRecordLine}'s lines (one at a time: nothing it writes waits). */
const writer = new JsonTextWriter();

/**
 * Layout 2's line of a run record (see above). Pure. Written straight from the fields by a
 * {@link JsonTextWriter} ({@link writeLine}): the line's object, its calls' rows and the rope
 * `JSON.stringify` builds were about 4,000 bytes a 10-call record in V8's heap, where this
 * allocates the string and little else. {@link compactRecord} is the same line as an object,
 * which `JSON.stringify` writes where the writer does not (see {@link writeLine}).
 */
export function compactRecordLine(
  fields: LineFields,
  key: string,
  { contentAsJson = true, withReceived = true }: LineOptions = {},
): string {
  return writer.text({ fields, key, contentAsJson, withReceived }, writeLine, stringifyLine);
}

/** The line as `JSON.stringify` writes {@link compactRecord}'s object. */
function stringifyLine(line: Line): string {
  return JSON.stringify(compactRecord(line.fields, line.key, line));
}

/**
 * A run record's compact line as an object (its JSON is {@link compactRecordLine}'s line): what
 * `JSON.stringify` writes where {@link writeLine} leaves the line to it, and what tests hold the
 * writer's lines to.
 */
export function compactRecord(
  fields: LineFields,
  key: string,
  { contentAsJson = true, withReceived = true }: LineOptions = {},
): Record<string, unknown> {
  const out: Record<string, unknown> = { v: 2 };
  // `for…in` and no JSON for the defaults' check: the memory store writes a record a pass.
  for (const name in fields) {
    const value = fields[name as keyof RecordFields] as unknown;
    if (value === undefined || name === 'export' || name === 'results') continue;
    if (name === 'receivedAtUnixMs' && !withReceived) continue;
    if (name === 'traceId' && value === key) continue;
    if (name === 'testCaseIdAttribute' && fields.testCaseId !== null) {
      if (value !== DEFAULT_TEST_CASE_ATTRIBUTE) out[name] = value;
      continue;
    }
    if (name === 'agents') {
      out.agents = (value as NonNullable<RecordFields['agents']>).map(a =>
        a.handoff === null ? a.agent : [a.agent, a.handoff],
      );
      continue;
    }
    if (name === 'toolCalls') {
      if ((value as WrittenToolCall[]).length)
        out.calls = encodeCalls(value as WrittenToolCall[], contentAsJson);
      continue;
    }
    if (name in DEFAULTS && isDefault(value, DEFAULTS[name as keyof RecordFields])) continue;
    out[name] = value;
  }
  return out;
}

/**
 * Writes {@link compactRecord}'s object as JSON without making it, field for field in its order;
 * false (nothing to take) where that order or those fields would not be the object's: a field
 * named `v` or `calls` (the line's own), one whose name is an array index (an object lists those
 * first), or fields that hold something else than a record holds (the calls or agents not arrays).
 */
function writeLine(w: JsonTextWriter, { fields, key, contentAsJson, withReceived }: Line): boolean {
  w.raw('{"v":2');
  for (const name in fields) {
    const value = fields[name as keyof RecordFields] as unknown;
    if (value === undefined || name === 'export' || name === 'results') continue;
    if (name === 'v' || name === 'calls' || isIndexLike(name)) return false;
    if (name === 'receivedAtUnixMs' && !withReceived) continue;
    if (name === 'traceId' && value === key) continue;
    if (name === 'testCaseIdAttribute' && fields.testCaseId !== null) {
      if (value !== DEFAULT_TEST_CASE_ATTRIBUTE) writeField(w, name, value);
      continue;
    }
    if (name === 'agents') {
      if (!Array.isArray(value)) return false;
      w.key(name, false);
      writeAgents(w, value as NonNullable<RecordFields['agents']>);
      continue;
    }
    if (name === 'toolCalls') {
      if (!Array.isArray(value)) return false;
      if (value.length === 0) continue;
      w.key('calls', false);
      writeCalls(w, value as WrittenToolCall[], contentAsJson);
      continue;
    }
    if (name in DEFAULTS && isDefault(value, DEFAULTS[name as keyof RecordFields])) continue;
    writeField(w, name, value);
  }
  w.raw('}');
  return true;
}

/** A field as JSON writes it into an object: left out when JSON leaves it out. */
function writeField(w: JsonTextWriter, name: string, value: unknown): void {
  if (!JsonTextWriter.writes(value)) return;
  w.key(name, false);
  w.value(value);
}

/** Whether a key is one an object lists before the others (an array index: digits). */
function isIndexLike(name: string): boolean {
  const c = name.charCodeAt(0);
  return c >= 0x30 && c <= 0x39;
}

/** The route's agents as {@link compactRecord} has them: a name, or a name and its handoff. */
function writeAgents(w: JsonTextWriter, agents: NonNullable<RecordFields['agents']>): void {
  w.raw('[');
  for (let i = 0; i < agents.length; i++) {
    const a = agents[i]!;
    if (i > 0) w.raw(',');
    if (a.handoff === null) {
      w.value(a.agent);
      continue;
    }
    w.raw('[');
    w.value(a.agent);
    w.raw(',');
    w.value(a.handoff);
    w.raw(']');
  }
  w.raw(']');
}

/** {@link encodeCalls}'s object written as JSON, without it or its rows made. */
function writeCalls(w: JsonTextWriter, calls: readonly WrittenToolCall[], contentAsJson: boolean) {
  const names: string[] = [];
  for (let i = 0; i < calls.length; i++)
    if (names.indexOf(calls[i]!.name) < 0) names.push(calls[i]!.name);
  const convention = calls[0]?.convention;
  const agent = calls[0]?.agent;
  w.raw('{"t":');
  w.value(names);
  if (JsonTextWriter.writes(convention)) {
    w.raw(',"c":');
    w.value(convention);
  }
  if (JsonTextWriter.writes(agent)) {
    w.raw(',"g":');
    w.value(agent);
  }
  w.raw(',"l":[');
  for (let i = 0; i < calls.length; i++) {
    const call = calls[i]!;
    if (i > 0) w.raw(',');
    const other = otherOf(call, convention, agent);
    const duration = Number.isFinite(call.durationMs) ? call.durationMs! : null;
    const args = contentAsJson ? contentValue(call.arguments) : (call.arguments ?? null);
    const result = contentAsJson ? contentValue(call.result) : (call.result ?? null);
    const length = rowLength(other, duration, args, result);
    w.raw('[');
    w.number(names.indexOf(call.name));
    w.raw(',');
    w.value(call.spanId);
    if (length > 2) rowCell(w, duration);
    if (length > 3) rowCell(w, args);
    if (length > 4) rowCell(w, result);
    if (length > 5) rowCell(w, other);
    w.raw(']');
  }
  w.raw(']}');
}

/** A cell of a call's row after the first two, its comma before it. */
function rowCell(w: JsonTextWriter, value: unknown): void {
  w.raw(',');
  w.value(value);
}

/** Whether a parsed record line is layout 2's. */
export function isCompactRecord(parsed: Record<string, unknown>): boolean {
  return parsed.v === 2;
}

/** Layout 2's record line, parsed, as the record's fields (defaults back in their places). */
export function decodeCompactRecord(parsed: Record<string, unknown>, key: string): RecordFields {
  const out: Record<string, unknown> = {};
  for (const name of FIELD_ORDER) {
    if (name === 'traceId') out.traceId = parsed.traceId ?? key;
    else if (name === 'toolCalls') out.toolCalls = parsed.calls ? decodeCalls(parsed.calls) : [];
    else if (name === 'testCaseIdAttribute' && !(name in parsed) && out.testCaseId !== null)
      out[name] = DEFAULT_TEST_CASE_ATTRIBUTE;
    else if (name === 'agents' && Array.isArray(parsed.agents))
      out.agents = (parsed.agents as unknown[]).map(a =>
        Array.isArray(a)
          ? { agent: a[0] as string, handoff: a[1] as string }
          : { agent: a, handoff: null },
      );
    else if (name in parsed) out[name] = parsed[name];
    else if (name in DEFAULTS) out[name] = structuredClone(DEFAULTS[name]);
  }
  for (const name of Object.keys(parsed))
    if (!(name in out) && name !== 'v' && name !== 'calls') out[name] = parsed[name];
  return out as unknown as RecordFields;
}

/**
 * Tool calls compact: `{"t":[names],"c":convention,"g":agent,"l":[calls]}`, each call an array
 * `[name index, spanId, durationMs, arguments, result, other]`, trailing absent ones cut (an
 * absent one between is `null`). `c` and `g` are the first call's convention and agent, which a
 * call with the same leaves out. Arguments and results that are JSON objects or arrays written
 * exactly as `JSON.stringify` writes them are kept as JSON values (no escaped quotes), any other
 * text as a string (all of them as strings without `contentAsJson`: the check parses each, which
 * costs a store that holds the line in its heap more than it saves); those a pass wrote as values
 * (see `WrittenToolCall`) are kept as they are, with or without it. `other` holds what differs
 * from the defaults (`rawName` = name, `source` `executed`, `status` `ok`, `outcome` from the
 * status, `error` null, the convention and agent above) and the optional fields set, with `"-"`
 * listing the defaulted fields the call lacks.
 */
export function encodeCalls(
  calls: readonly WrittenToolCall[],
  contentAsJson = true,
): Record<string, unknown> {
  // Names by position in a list (a trace calls a few tools). The stores write calls with
  // `writeCalls` (no rows made); this is the object that is the JSON of.
  const names: string[] = [];
  const convention = calls[0]?.convention;
  const agent = calls[0]?.agent;
  const list = new Array<unknown[]>(calls.length);
  for (let i = 0; i < calls.length; i++) {
    const call = calls[i]!;
    let n = names.indexOf(call.name);
    if (n < 0) n = names.push(call.name) - 1;
    const other = otherOf(call, convention, agent);
    const duration = Number.isFinite(call.durationMs) ? call.durationMs! : null;
    const args = contentAsJson ? contentValue(call.arguments) : (call.arguments ?? null);
    const result = contentAsJson ? contentValue(call.result) : (call.result ?? null);
    // Trailing absent ones cut.
    const row = [n, call.spanId, duration, args, result, other];
    row.length = rowLength(other, duration, args, result);
    list[i] = row;
  }
  // `c` and `g` undefined when the first call has none: JSON leaves them out.
  return { t: names, c: convention, g: agent, l: list };
}

/**
 * What of a call its row's `other` holds (see {@link encodeCalls}): undefined where nothing
 * differs from the defaults (most calls), and then nothing is made.
 */
function otherOf(
  call: WrittenToolCall,
  convention: string | undefined,
  agent: string | undefined,
): Record<string, unknown> | undefined {
  let other: Record<string, unknown> | undefined;
  for (const key in call) {
    const value = call[key as keyof WrittenToolCall];
    if (value === undefined) continue;
    // A duration JSON writes as null (NaN, ±Infinity from hostile span times) would read back
    // absent by position: kept in `other`, where it reads back null as layout 1 gives it.
    if (key === 'durationMs' && !Number.isFinite(value)) (other ??= {})[key] = value;
    if (isPositional(key)) continue;
    if (!isDefaulted(key) || value !== callDefault(key, call, convention, agent))
      (other ??= {})[key] = value;
  }
  let absent: string[] | undefined;
  for (const key of DEFAULTED)
    if (call[key] === undefined && callDefault(key, call, convention, agent) !== undefined)
      (absent ??= []).push(key);
  if (absent) (other ??= {})['-'] = absent;
  return other;
}

/** A call's row's length: its trailing absent cells (null) cut, all six with an `other`. */
function rowLength(other: object | undefined, duration: unknown, args: unknown, result: unknown) {
  if (other !== undefined) return 6;
  if (result !== null) return 5;
  if (args !== null) return 4;
  return duration !== null ? 3 : 2;
}

/** Whether a call's row holds the field by position. */
function isPositional(key: string): boolean {
  return (
    key === 'name' ||
    key === 'spanId' ||
    key === 'durationMs' ||
    key === 'arguments' ||
    key === 'result'
  );
}

/** The fields a call leaves out at their defaults (see {@link callDefault}). */
const DEFAULTED = [
  'rawName',
  'source',
  'status',
  'outcome',
  'error',
  'convention',
  'agent',
] as const satisfies ReadonlyArray<keyof StoredToolCall>;

/** Whether a call leaves the field out at its default. */
function isDefaulted(key: string): boolean {
  return (DEFAULTED as readonly string[]).includes(key);
}

/** A defaulted field's default for a call (its name, status) among calls of `convention`, `agent`. */
function callDefault(
  key: string,
  call: Pick<StoredToolCall, 'name' | 'status'>,
  convention: string | undefined,
  agent: string | undefined,
): unknown {
  switch (key) {
    case 'rawName':
      return call.name;
    case 'source':
      return 'executed';
    case 'status':
      return 'ok';
    case 'outcome':
      return call.status === 'error' ? 'error' : 'ok';
    case 'error':
      return null;
    case 'convention':
      return convention;
    default:
      return agent;
  }
}

/**
 * A call's arguments or result as kept: a JSON value when that gives its text back exactly (a value
 * already, see `WrittenToolCall`, as it is).
 */
function contentValue(text: string | object | undefined): unknown {
  if (text === undefined) return null;
  if (typeof text !== 'string') return text;
  const first = text.charCodeAt(0);
  // Only objects and arrays: a string, number or null would read back as another thing.
  if (first !== 0x7b && first !== 0x5b) return text;
  try {
    const value = JSON.parse(text) as unknown;
    return JSON.stringify(value) === text ? value : text;
  } catch {
    return text;
  }
}

/** The calls {@link encodeCalls} wrote. */
export function decodeCalls(compact: unknown): StoredToolCall[] {
  const c = compact as { t?: string[]; c?: string; g?: string; l?: unknown[][] };
  const names = c.t ?? [];
  return (c.l ?? []).map(row => {
    const [n, spanId, durationMs, args, result, other] = row;
    const extra = (other ?? {}) as Record<string, unknown>;
    const name = names[n as number] ?? '';
    const status = (extra.status as string | undefined) ?? 'ok';
    const call: Record<string, unknown> = { name };
    // In the order `storedToolCall` writes a call's fields.
    for (const key of DEFAULTED)
      if (key !== 'convention' && key !== 'agent')
        call[key] = callDefault(
          key,
          { name, status: status as StoredToolCall['status'] },
          c.c,
          c.g,
        );
    call.spanId = spanId;
    call.convention = c.c;
    call.agent = c.g;
    for (const key of Object.keys(extra)) if (key !== '-') call[key] = extra[key];
    if (Array.isArray(extra['-'])) for (const key of extra['-']) delete call[String(key)];
    if (durationMs !== null && durationMs !== undefined) call.durationMs = durationMs;
    if (args !== null && args !== undefined) call.arguments = contentText(args);
    if (result !== null && result !== undefined) call.result = contentText(result);
    for (const key of Object.keys(call)) if (call[key] === undefined) delete call[key];
    return call as unknown as StoredToolCall;
  });
}

function contentText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}
