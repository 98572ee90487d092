import type { RunRecord, WrittenToolCall } from './stored-result.js';
import { SPANSCORE_ATTRIBUTES } from '../semconv/attributes.js';
import { JsonTextWriter } from './json-text-writer.js';
import { decodeCalls, encodeCalls, writeCalls } from './compact-tool-calls.js';

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
    // Agents' names: names a process writes again and again (`names`).
    if (a.handoff === null) {
      w.names(a.agent);
      continue;
    }
    w.raw('[');
    w.names(a.agent);
    w.raw(',');
    w.names(a.handoff);
    w.raw(']');
  }
  w.raw(']');
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
