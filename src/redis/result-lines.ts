import type { StoredResult } from '../results/stored-result.js';

/** A stored result without its id (the store gives it one where it reads it). */
type Result = Omit<StoredResult, 'id'>;

/**
 * The results stream's lines (one entry per write; see `createRedisResultsStore`), in either
 * results layout (`results.layout`):
 * - `{…}`: a whole result, as JSON. Layout 1 writes every result so.
 * - `={…}`: layout 2's first result of each run record's pass: its JSON without the fields at
 *   their defaults (see `DEFAULTS`, and `failingAgents` empty beside `agents`), its `toolSequence` as
 *   indices into its `toolsUsed` when every name is there (an array of numbers: tool names are
 *   strings, so never ambiguous).
 * - `~{…}`: layout 2's next results of the same pass: only the fields where the result differs
 *   from the nearest whole line above it, and `"-"` listing the fields it lacks. A pass's results
 *   share their trace's facts (service, tool sequence, tools used, agents, test case), which are
 *   so written once a pass, not once a result.
 */
const DIFF = '~';
const FIRST = '=';
/** Fields every result has, and the value layout 2 leaves out (null: unknown, or the usual). */
const DEFAULTS: Partial<Record<keyof Result, unknown>> = {
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
const ABSENT = '-';

/**
 * StoredResult's fields in the order `toStoredResults` writes them: a decoded result is built in
 * this order, so that the API's JSON is the same in either layout.
 */
const FIELD_ORDER: ReadonlyArray<keyof Result> = [
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

/** Layout 1's line of a result: its JSON. */
export function wholeResultLine(result: Result): string {
  return JSON.stringify(result);
}

/**
 * One pass's results (all of one run record) as layout 2's stream lines: the first whole, each
 * next one as its difference from the first. Pure.
 */
export function passResultLines(results: readonly Result[]): string[] {
  if (results.length === 0) return [];
  const base = results[0]!;
  const out = [FIRST + JSON.stringify(withoutDefaults(withIndexedSequence(base)))];
  const fields = base as unknown as Record<string, unknown>;
  for (let i = 1; i < results.length; i++) {
    const r = results[i] as unknown as Record<string, unknown>;
    const diff: Record<string, unknown> = {};
    for (const key of Object.keys(r))
      if (!sameValue(r[key], fields[key]) && r[key] !== undefined) diff[key] = r[key];
    const absent = Object.keys(fields).filter(k => fields[k] !== undefined && r[k] === undefined);
    if (absent.length) diff[ABSENT] = absent;
    out.push(DIFF + JSON.stringify(diff));
  }
  return out;
}

/** Two field values equal as JSON (the arrays of one pass's results are often one array). */
function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  return JSON.stringify(a) === JSON.stringify(b);
}

/** A result's fields without those at their defaults (see `=` above). */
function withoutDefaults(result: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(result)) {
    if (key in DEFAULTS && DEFAULTS[key as keyof Result] === value) continue;
    if (key === 'failingAgents' && Array.isArray(value) && value.length === 0 && result.agents)
      continue;
    out[key] = value;
  }
  return out;
}

/** The result with its tool sequence as indices into its tools used, when all are there. */
function withIndexedSequence(result: Result): Record<string, unknown> {
  const { toolSequence, toolsUsed } = result;
  if (toolSequence.length === 0) return { ...result };
  const at = new Map(toolsUsed.map((name, i) => [name, i]));
  const indices: number[] = [];
  for (const name of toolSequence) {
    const i = at.get(name);
    if (i === undefined) return { ...result };
    indices.push(i);
  }
  return { ...result, toolSequence: indices };
}

/**
 * The results of one stream entry's lines, read lazily: `at(i)` decodes line `i` (a whole line
 * once, however many lines refer to it). Reads either layout, and entries holding both.
 */
export class EntryResults {
  private readonly wholes = new Map<number, Record<string, unknown>>();

  constructor(private readonly lines: readonly string[]) {}

  get length(): number {
    return this.lines.length;
  }

  /** Line `i`'s result; `undefined` for a difference line with no whole line above it. */
  at(i: number): Result | undefined {
    const line = this.lines[i]!;
    if (!line.startsWith(DIFF)) return decodeWhole(this.whole(i));
    let b = i - 1;
    while (b >= 0 && this.lines[b]!.startsWith(DIFF)) b--;
    if (b < 0) return undefined;
    const diff = JSON.parse(line.slice(DIFF.length)) as Record<string, unknown>;
    const merged = decodeWhole(this.whole(b)) as unknown as Record<string, unknown>;
    const absent = diff[ABSENT];
    delete diff[ABSENT];
    if (Array.isArray(absent)) for (const key of absent) delete merged[String(key)];
    let added = false;
    for (const key of Object.keys(diff)) {
      if (!(key in merged)) added = true;
      merged[key] = diff[key];
    }
    return (added ? inFieldOrder(merged) : merged) as unknown as Result;
  }

  private whole(i: number): Record<string, unknown> {
    let w = this.wholes.get(i);
    if (!w) {
      const line = this.lines[i]!;
      w = line.startsWith(FIRST)
        ? withDefaults(JSON.parse(line.slice(FIRST.length)) as Record<string, unknown>)
        : (JSON.parse(line) as Record<string, unknown>);
      this.wholes.set(i, w);
    }
    return w;
  }
}

/** A `=` line's fields with their defaults back, in {@link FIELD_ORDER}. */
function withDefaults(fields: Record<string, unknown>): Record<string, unknown> {
  for (const [key, value] of Object.entries(DEFAULTS)) if (!(key in fields)) fields[key] = value;
  if (fields.agents && !('failingAgents' in fields)) fields.failingAgents = [];
  return inFieldOrder(fields);
}

/** A whole line's fields as a result: a sequence of indices read back as names. */
function decodeWhole(fields: Record<string, unknown>): Result {
  const seq = fields.toolSequence;
  if (!Array.isArray(seq) || typeof seq[0] !== 'number') return { ...fields } as unknown as Result;
  const used = Array.isArray(fields.toolsUsed) ? (fields.toolsUsed as unknown[]) : [];
  return { ...fields, toolSequence: seq.map(i => used[i as number]) } as unknown as Result;
}

/** The fields in {@link FIELD_ORDER}, then any other (written by a later release) after. */
function inFieldOrder(fields: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of FIELD_ORDER) if (key in fields) out[key] = fields[key];
  for (const key of Object.keys(fields)) if (!(key in out)) out[key] = fields[key];
  return out;
}
