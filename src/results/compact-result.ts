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
 * need not copy the result to add one). Pure; one object and one array a result.
 */
export function compactResultJson(result: Partial<StoredResult>, id?: string): string {
  const out: Record<string, unknown> = {};
  if (id !== undefined) out.id = id;
  const used = result.toolsUsed ?? [];
  for (const key in result) {
    const value = result[key as keyof StoredResult];
    if (value === undefined) continue;
    if (Object.hasOwn(DEFAULTS, key) && DEFAULTS[key] === value) continue;
    if (key === 'failingAgents' && result.agents && (value as string[]).length === 0) continue;
    if (key === 'toolSequence') {
      const seq = value as string[];
      const indices: number[] = [];
      for (const name of seq) {
        const i = used.indexOf(name);
        if (i < 0) break;
        indices.push(i);
      }
      out[key] = indices.length === seq.length && seq.length > 0 ? indices : seq;
      continue;
    }
    out[key] = value;
  }
  return JSON.stringify(out);
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
