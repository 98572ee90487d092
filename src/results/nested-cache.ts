type Level<V> = Map<string, Level<V> | { value: V }>;

/**
 * Values made once per tuple of strings and kept, looked up by walking nested maps rather than by
 * a key joined from the strings: a measured hot path (the per-minute counters' field names, once
 * per result and per tool call). The strings come from decoded traces, the same instances trace
 * after trace, so each lookup finds its hash already computed. At most `max` values (default
 * 10,000): past it the cache starts again, so a flood of distinct tuples costs memory once.
 */
export class NestedCache<V> {
  // A tree per tuple length: a tuple's leaf never stands where a longer tuple's level would.
  private roots: Array<Level<V> | undefined> = [];
  private size = 0;

  constructor(private readonly max = 10_000) {}

  /**
   * The value of `keys` (one or more strings), made by `make(keys)` the first time. `keys` is
   * read, not kept: a caller may pass the same array refilled each time (the hot paths do, to
   * allocate nothing per lookup), and `make` should not capture per-call state for the same
   * reason. Tuples of different lengths are different keys.
   */
  get(keys: readonly string[], make: (keys: readonly string[]) => V): V {
    let level = (this.roots[keys.length] ??= new Map());
    const last = keys.length - 1;
    for (let i = 0; i < last; i++) {
      let next = level.get(keys[i]!) as Level<V> | undefined;
      if (!next) level.set(keys[i]!, (next = new Map()));
      level = next;
    }
    const leaf = level.get(keys[last]!) as { value: V } | undefined;
    if (leaf) return leaf.value;
    if (this.size >= this.max) {
      this.roots = [];
      this.size = 0;
      return this.get(keys, make);
    }
    const value = make(keys);
    level.set(keys[last]!, { value });
    this.size++;
    return value;
  }
}
