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

/** StoredResult's fields in the order `toStoredResults` writes them (a store's `id` first). */
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
 * A result's compact JSON (see above), with `id` first when given apart (a store assigning ids
 * need not copy the result to add one). Pure; one object a result, and an array for its tool
 * sequence.
 */
export function compactResultJson(result: Partial<StoredResult>, id?: string): string {
  const out: Record<string, unknown> = {};
  if (id !== undefined) out.id = id;
  for (const key in result) {
    const value = result[key as keyof StoredResult];
    if (value === undefined) continue;
    if (key === 'toolSequence') out[key] = compactSequence(value as string[], result.toolsUsed);
    else if (!leftOut(result, key, value)) out[key] = value;
  }
  return JSON.stringify(out);
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
