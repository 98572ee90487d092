import type { StoredResult } from './stored-result.js';

/**
 * A stored result's compact JSON (results layout 2's first line of a pass in the Redis stream, and
 * how the memory store holds its results): the result's JSON without the fields at their
 * defaults ({@link DEFAULTS}, and `failingAgents` empty beside `agents`), its `toolSequence` as
 * indices into its `toolsUsed` when every name is there (an array of numbers: tool names are
 * strings, so never ambiguous). Read back by {@link expandCompactResult}, field for field and in
 * the order `toStoredResults` writes them.
 */
const DEFAULTS: Readonly<Record<string, unknown>> = {
  targetKind: 'test_case',
  scorerKind: 'deterministic',
  phase: 'all',
  status: 'scored',
  score: null,
  label: null,
  expectedTools: null,
  serviceVersion: null,
  deploymentEnvironment: null,
  agentName: null,
  judgeCostUsd: null,
};

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
];

/**
 * A result's compact JSON (see above): its own JSON, the fields at their defaults left out as it is
 * written (no copy of the result; `undefined` fields are left out too, as JSON does). A result's
 * fields are flat (strings, numbers, arrays of them): a nested object's keys would be read as its.
 * Pure; an array for its tool sequence.
 */
export function compactResultJson(result: Partial<StoredResult>): string {
  return JSON.stringify(result, compactField);
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
  if (Object.hasOwn(DEFAULTS, key) && DEFAULTS[key] === value) return true;
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
    else if (Object.hasOwn(DEFAULTS, key)) out[key] = DEFAULTS[key];
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
