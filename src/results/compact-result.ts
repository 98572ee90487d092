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
 * need not copy the result to add one). Pure. A result whose fields come in {@link FIELD_ORDER}
 * (as `toStoredResults` writes them) is written from one object of one shape; any other (fields
 * out of that order, or a later release's) field by field into an object JSON writes as built.
 */
export function compactResultJson(result: Partial<StoredResult>, id?: string): string {
  if (inFieldOrder(result)) return JSON.stringify(new CompactResult(result, id));
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

/** Positions in {@link FIELD_ORDER}. */
const FIELD_INDEX = new Map<string, number>(FIELD_ORDER.map((key, i) => [key, i]));

/** Whether every field of `result` is one of {@link FIELD_ORDER}'s, in its order. */
function inFieldOrder(result: Partial<StoredResult>): boolean {
  let last = -1;
  for (const key in result) {
    const i = FIELD_INDEX.get(key);
    if (i === undefined || i <= last) return false;
    last = i;
  }
  return true;
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
 * A result's compact fields in {@link FIELD_ORDER}, one object of one shape: those left out are
 * `undefined`, which JSON leaves out (a result has more fields than V8 keeps an object built key
 * by key in fast mode for).
 */
class CompactResult {
  id: string | undefined;
  timeUnixMs: unknown;
  traceId: unknown;
  targetKind: unknown;
  suite: unknown;
  testCaseId: unknown;
  scorer: unknown;
  scorerKind: unknown;
  scorerVersion: unknown;
  phase: unknown;
  status: unknown;
  score: unknown;
  label: unknown;
  reason: unknown;
  expectedTools: unknown;
  toolSequence: unknown;
  toolsUsed: unknown;
  serviceName: unknown;
  serviceVersion: unknown;
  deploymentEnvironment: unknown;
  agentName: unknown;
  agents: unknown;
  failingAgents: unknown;
  judgeCostUsd: unknown;
  sessionId: unknown;
  sessionPart: unknown;
  failingTurn: unknown;

  constructor(r: Partial<StoredResult>, id: string | undefined) {
    this.id = r.id ?? id;
    this.timeUnixMs = r.timeUnixMs;
    this.traceId = r.traceId;
    this.targetKind = kept(r, 'targetKind');
    this.suite = r.suite;
    this.testCaseId = r.testCaseId;
    this.scorer = r.scorer;
    this.scorerKind = kept(r, 'scorerKind');
    this.scorerVersion = r.scorerVersion;
    this.phase = kept(r, 'phase');
    this.status = kept(r, 'status');
    this.score = kept(r, 'score');
    this.label = kept(r, 'label');
    this.reason = r.reason;
    this.expectedTools = kept(r, 'expectedTools');
    this.toolSequence = r.toolSequence && compactSequence(r.toolSequence, r.toolsUsed);
    this.toolsUsed = r.toolsUsed;
    this.serviceName = r.serviceName;
    this.serviceVersion = kept(r, 'serviceVersion');
    this.deploymentEnvironment = kept(r, 'deploymentEnvironment');
    this.agentName = kept(r, 'agentName');
    this.agents = r.agents;
    this.failingAgents = kept(r, 'failingAgents');
    this.judgeCostUsd = kept(r, 'judgeCostUsd');
    this.sessionId = r.sessionId;
    this.sessionPart = r.sessionPart;
    this.failingTurn = r.failingTurn;
  }
}

/** A field's value, `undefined` when the compact JSON leaves it out. */
function kept(result: Partial<StoredResult>, key: keyof StoredResult): unknown {
  const value = result[key];
  return value === undefined || leftOut(result, key, value) ? undefined : value;
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
