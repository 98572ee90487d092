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

  /** Adds `by` to the series of these label values, given in `labelNames`' order. */
  add(values: readonly string[], by = 1): void {
    if (by === 0) return;
    const leaf = this.leaves.get(values, () => {
      const labels: Record<string, string> = {};
      this.labelNames.forEach((name, i) => (labels[name] = values[i]!));
      return { labels, pending: 0 };
    });
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
