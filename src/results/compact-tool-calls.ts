import { MAX_CONTENT_CHARS, type StoredToolCall, type WrittenToolCall } from './stored-result.js';
import { JsonTextWriter } from './json-text-writer.js';
import { jsonSourceText } from '../normalize/content-attribute.js';

/*
 * A run record's tool calls as layout 2's compact record line and the memory store hold them
 * (`compactRecordLine`'s `calls` field): written (`writeCalls`, no rows made), as an object
 * (`encodeCalls`, what that text is the JSON of) and read back (`decodeCalls`).
 */

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
    const fallback = callDefault(key, call, convention, agent);
    if (fallback === NOT_DEFAULTED || value !== fallback) (other ??= {})[key] = value;
  }
  // DEFAULTED's fields a call lacks, in its order, read by name: the list's keyed loads were
  // megamorphic (calls have several shapes), about 450 instructions a scored span.
  let absent: string[] | undefined;
  if (call.rawName === undefined && call.name !== undefined) (absent ??= []).push('rawName');
  if (call.source === undefined) (absent ??= []).push('source');
  if (call.status === undefined) (absent ??= []).push('status');
  if (call.outcome === undefined) (absent ??= []).push('outcome');
  if (call.error === undefined) (absent ??= []).push('error');
  if (call.convention === undefined && convention !== undefined) (absent ??= []).push('convention');
  if (call.agent === undefined && agent !== undefined) (absent ??= []).push('agent');
  if (absent) (other ??= {})['-'] = absent;
  return other;
}

/** {@link callDefault}'s answer for a field a call does not leave out at a default. */
const NOT_DEFAULTED = Symbol('not defaulted');

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

/**
 * A {@link DEFAULTED} field's default for a call (its name, status) among calls of `convention`,
 * `agent`; {@link NOT_DEFAULTED} for any other field. One switch of the key, where a set's lookup
 * and then the switch were about 240 instructions a scored span more.
 */
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
    case 'agent':
      return agent;
    default:
      return NOT_DEFAULTED;
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

/** {@link encodeCalls}'s object written as JSON, without it or its rows made. */
export function writeCalls(
  w: JsonTextWriter,
  calls: readonly WrittenToolCall[],
  contentAsJson: boolean,
) {
  const names: string[] = [];
  for (let i = 0; i < calls.length; i++)
    if (names.indexOf(calls[i]!.name) < 0) names.push(calls[i]!.name);
  const convention = calls[0]?.convention;
  const agent = calls[0]?.agent;
  // Tool names, conventions and agents: names a process writes again and again (`name`).
  w.raw('{"t":');
  w.names(names);
  if (JsonTextWriter.writes(convention)) {
    w.raw(',"c":');
    w.names(convention);
  }
  if (JsonTextWriter.writes(agent)) {
    w.raw(',"g":');
    w.names(agent);
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
    if (length > 3) contentCell(w, args);
    if (length > 4) contentCell(w, result);
    if (length > 5) rowCell(w, other);
    w.raw(']');
  }
  w.raw(']}');
}

/**
 * A call's arguments or result cell: the JSON text its value was parsed from copied as it is
 * where there is one within {@link MAX_CONTENT_CHARS} (`jsonSourceText`: the same value when
 * read, without its keys and strings written one by one), else the value written.
 */
function contentCell(w: JsonTextWriter, value: unknown): void {
  w.raw(',');
  const source = jsonSourceText(value);
  if (source === undefined || source.length > MAX_CONTENT_CHARS || !w.json(source)) w.value(value);
}

/** A cell of a call's row after the first two, its comma before it. */
function rowCell(w: JsonTextWriter, value: unknown): void {
  w.raw(',');
  w.value(value);
}
