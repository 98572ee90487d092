import type { IndexedTrace } from '../normalize/indexed-trace.js';
import { inputBoundHitCount } from '../normalize/input-bounds.js';
import { normalizeIndexedTrace, type NormalizedTrace } from '../normalize/normalize-trace.js';

/**
 * One trace's normalizations for the per-trace loop: one per alias map, made again only for
 * another test case id. Suites and rules each build their own alias map; most are empty or
 * equal, and then share one normalization (an equal map finds it). The values normalization's
 * bounds left unread are counted, normalization by normalization (other traces are read while
 * this one awaits its scorers).
 *
 * Most traces are normalized once: that normalization is kept in fields, and a map is made only
 * for a second alias map (a map, and a closure over it, were about 200 heap bytes a trace).
 */
export class TraceNormalizations {
  /** Values left unread by the bounds of the normalizations made (see `inputBoundHitCount`). */
  boundHits = 0;
  readonly #traceId: string;
  readonly #indexed: IndexedTrace;
  /** The first alias map kept, and its normalization. */
  #aliases: ReadonlyMap<string, string> | undefined;
  #trace: NormalizedTrace | undefined;
  /** Those of the other alias maps, in the order they came. */
  #others: Map<ReadonlyMap<string, string>, NormalizedTrace> | undefined;

  constructor(traceId: string, indexed: IndexedTrace) {
    this.#traceId = traceId;
    this.#indexed = indexed;
  }

  /** The trace as `aliases` read it, `testCaseId` its test case id (not looked up again). */
  of(aliases: ReadonlyMap<string, string>, testCaseId: string | undefined): NormalizedTrace {
    let trace = this.#find(aliases);
    if (!trace || trace.testCaseId !== testCaseId) {
      const before = inputBoundHitCount();
      trace = normalizeIndexedTrace(this.#traceId, this.#indexed, { aliases, testCaseId });
      this.boundHits += inputBoundHitCount() - before;
      if (this.#trace === undefined || this.#aliases === aliases) {
        this.#aliases = aliases;
        this.#trace = trace;
      } else (this.#others ??= new Map()).set(aliases, trace);
    }
    return trace;
  }

  /** The normalization kept for `aliases`, else for the first alias map equal to it. */
  #find(aliases: ReadonlyMap<string, string>): NormalizedTrace | undefined {
    if (this.#trace === undefined) return undefined;
    if (this.#aliases === aliases) return this.#trace;
    const kept = this.#others?.get(aliases);
    if (kept) return kept;
    if (sameMap(this.#aliases!, aliases)) return this.#trace;
    if (this.#others)
      for (const [other, trace] of this.#others) if (sameMap(other, aliases)) return trace;
    return undefined;
  }
}

/** Whether two alias maps hold the same entries. */
function sameMap(a: ReadonlyMap<string, string>, b: ReadonlyMap<string, string>): boolean {
  if (a.size !== b.size) return false;
  for (const [k, v] of b) if (a.get(k) !== v) return false;
  return true;
}
