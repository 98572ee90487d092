import type { Counter } from 'prom-client';

interface Leaf {
  labels: Record<string, string>;
  pending: number;
}

type Level = Map<string, Level | Leaf>;

/**
 * Increments of a labelled prom-client counter, kept here and handed to it when a scrape reads it
 * ({@link DeferredCounts.flush}): a measured hot path. prom-client hashes and validates the label
 * set on every `inc` (about a microsecond); here an increment is a walk down nested maps keyed by
 * the label values, which the scoring path passes as the same string instances trace after trace,
 * so each lookup finds its hash already computed. The label sets are bounded by the caller (as
 * they must be for the counter anyway).
 */
export class DeferredCounts<L extends string> {
  private readonly root: Level = new Map();
  private readonly dirty: Leaf[] = [];

  constructor(
    private readonly counter: Counter<L>,
    private readonly labelNames: readonly L[],
  ) {}

  /** Adds `by` to the series of these label values, given in `labelNames`' order. */
  add(values: readonly string[], by = 1): void {
    if (by === 0) return;
    let level = this.root;
    const last = values.length - 1;
    for (let i = 0; i < last; i++) {
      let next = level.get(values[i]!) as Level | undefined;
      if (!next) level.set(values[i]!, (next = new Map()));
      level = next;
    }
    let leaf = level.get(values[last]!) as Leaf | undefined;
    if (!leaf) {
      const labels: Record<string, string> = {};
      this.labelNames.forEach((name, i) => (labels[name] = values[i]!));
      level.set(values[last]!, (leaf = { labels, pending: 0 }));
    }
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
