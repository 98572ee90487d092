/** The most keys a {@link FewKeyMap} finds by a scan; past it, it moves them into a `Map`. */
export const SCAN_LIMIT = 32;

/**
 * Values by key for the few keys one trace has (its tool calls, its requesting spans): an array
 * of keys and values searched by a scan while it holds at most {@link SCAN_LIMIT} keys, a `Map`
 * past that, so a hostile trace with thousands of calls still finds each in constant time. A
 * `Map` built a hash table of about 100 bytes a key for a 20-span trace (an empty one was 150);
 * the array, sized once to `capacity` when the caller knows how many keys may come, take 16 bytes a key, and
 * scanning ten keys costs no more than hashing one.
 *
 * Keys compare with `===` (strings by value, objects by identity); setting a key again replaces
 * its value, as in a `Map`. Iteration is not offered: callers only look keys up.
 */
export class FewKeyMap<K, V> {
  // Keys at even indexes, each one's value after it: one list, where a list of keys and one of
  // values took a second list's 48 bytes of headers a map (four or five maps a trace).
  #entries: unknown[];
  #size = 0;
  #map: Map<K, V> | undefined;

  /** `capacity`: how many keys the caller expects, at most; more may still be set. */
  constructor(capacity = 0) {
    if (capacity > SCAN_LIMIT) {
      this.#map = new Map();
      this.#entries = [];
    } else {
      // Sized once: pushing onto an empty array reserved 17 slots at the first key.
      this.#entries = new Array<unknown>(2 * capacity);
    }
  }

  get(key: K): V | undefined {
    if (this.#map) return this.#map.get(key);
    const entries = this.#entries;
    const end = 2 * this.#size;
    for (let i = 0; i < end; i += 2) if (entries[i] === key) return entries[i + 1] as V;
    return undefined;
  }

  has(key: K): boolean {
    if (this.#map) return this.#map.has(key);
    const entries = this.#entries;
    const end = 2 * this.#size;
    for (let i = 0; i < end; i += 2) if (entries[i] === key) return true;
    return false;
  }

  set(key: K, value: V): void {
    if (this.#map) {
      this.#map.set(key, value);
      return;
    }
    const entries = this.#entries;
    const end = 2 * this.#size;
    for (let i = 0; i < end; i += 2)
      if (entries[i] === key) {
        entries[i + 1] = value;
        return;
      }
    if (this.#size === SCAN_LIMIT) {
      const map = (this.#map = new Map<K, V>());
      for (let i = 0; i < end; i += 2) map.set(entries[i] as K, entries[i + 1] as V);
      map.set(key, value);
      this.#entries = [];
      return;
    }
    entries[end] = key;
    entries[end + 1] = value;
    this.#size++;
  }
}
