import type { Counter } from 'prom-client';
import { NestedCache } from '../results/nested-cache.js';

interface Leaf {
  labels: Record<string, string>;
  pending: number;
}

/**
 * Increments of a labelled prom-client counter, kept here and handed to it when a scrape reads it
 * ({@link DeferredCounts.flush}): a measured hot path. prom-client hashes and validates the label
 * set on every `inc` (about a microsecond); here an increment is a {@link NestedCache} lookup by
 * the label values, which the scoring path passes as the same string instances trace after trace.
 * The label sets are bounded by the caller (as they must be for the counter anyway); should the
 * cache start again, leaves still pending are flushed all the same (they are in `dirty`).
 */
export class DeferredCounts<L extends string> {
  private readonly leaves = new NestedCache<Leaf>();
  private readonly dirty: Leaf[] = [];

  constructor(
    private readonly counter: Counter<L>,
    private readonly labelNames: readonly L[],
  ) {}

  /** The values {@link DeferredCounts.add} is adding, for `newLeaf` (no closure per call). */
  private adding: readonly string[] = [];
  private readonly newLeaf = (): Leaf => {
    const labels: Record<string, string> = {};
    this.labelNames.forEach((name, i) => (labels[name] = this.adding[i]!));
    return { labels, pending: 0 };
  };

  /**
   * Adds `by` to the series of these label values, given in `labelNames`' order. `values` is
   * read here and not kept: the caller may refill the same array for its next call.
   */
  add(values: readonly string[], by = 1): void {
    if (by === 0) return;
    this.adding = values;
    const leaf = this.leaves.get(values, this.newLeaf);
    if (leaf.pending === 0) this.dirty.push(leaf);
    leaf.pending += by;
  }

  /** Hands every pending increment to the counter. */
  flush(): void {
    for (const leaf of this.dirty) {
      this.counter.inc(leaf.labels as Partial<Record<L, string>>, leaf.pending);
      leaf.pending = 0;
    }
    this.dirty.length = 0;
  }
}
