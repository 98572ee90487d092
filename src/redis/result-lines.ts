import {
  compactResultJson,
  expandCompactResult,
  inResultFieldOrder,
} from '../results/compact-result.js';
import type { StoredResult } from '../results/stored-result.js';

/** A stored result without its id (the store gives it one where it reads it). */
type Result = Omit<StoredResult, 'id'>;

/**
 * The results stream's lines (one entry per write; see `createRedisResultsStore`), in either
 * results layout (`results.layout`):
 * - `{…}`: a whole result, as JSON. Layout 1 writes every result so.
 * - `={…}`: layout 2's first result of each run record's pass, compact (`compactResultJson`:
 *   defaults left out, its tool sequence as indices into its tools used).
 * - `~{…}`: layout 2's next results of the same pass: only the fields where the result differs
 *   from the nearest whole line above it, and `"-"` listing the fields it lacks. A pass's results
 *   share their trace's facts (service, tool sequence, tools used, agents, test case), which are
 *   so written once a pass, not once a result.
 */
const DIFF = '~';
const FIRST = '=';
const ABSENT = '-';

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
  const out = [FIRST + compactResultJson(base)];
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

  /**
   * Line `i`'s result; `undefined` for a difference line with no whole line (`=` or `{`) above
   * it, after any difference lines.
   */
  at(i: number): Result | undefined {
    const line = this.lines[i]!;
    if (!line.startsWith(DIFF)) return { ...this.whole(i) } as unknown as Result;
    let b = i - 1;
    while (b >= 0 && this.lines[b]!.startsWith(DIFF)) b--;
    // Its base is a whole result's line; anything else above it (none, or a run value's pointer
    // line) leaves it without one.
    if (b < 0 || !(this.lines[b]!.startsWith(FIRST) || this.lines[b]!.startsWith('{')))
      return undefined;
    const diff = JSON.parse(line.slice(DIFF.length)) as Record<string, unknown>;
    const merged = { ...this.whole(b) };
    const absent = diff[ABSENT];
    delete diff[ABSENT];
    if (Array.isArray(absent)) for (const key of absent) delete merged[String(key)];
    let added = false;
    for (const key of Object.keys(diff)) {
      if (!(key in merged)) added = true;
      merged[key] = diff[key];
    }
    return (added ? inResultFieldOrder(merged) : merged) as unknown as Result;
  }

  private whole(i: number): Record<string, unknown> {
    let w = this.wholes.get(i);
    if (!w) {
      const line = this.lines[i]!;
      w = line.startsWith(FIRST)
        ? expandCompactResult(JSON.parse(line.slice(FIRST.length)) as Record<string, unknown>)
        : (JSON.parse(line) as Record<string, unknown>);
      this.wholes.set(i, w);
    }
    return w;
  }
}
