/** The most keys a {@link FewKeyMap} finds by a scan; past it, it moves them into a `Map`. */
export const SCAN_LIMIT = 32;

/**
 * Values by key for the few keys one trace has (its tool calls, its requesting spans): two
 * arrays searched by a scan while they hold at most {@link SCAN_LIMIT} keys, a `Map` past that,
 * so a hostile trace with thousands of calls still finds each in constant time. A `Map` built a
 * hash table of about 100 bytes a key for a 20-span trace (an empty one was 150); the arrays,
 * sized once to `capacity` when the caller knows how many keys may come, take 16 bytes a key, and
 * scanning ten keys costs no more than hashing one.
 *
 * Keys compare with `===` (strings by value, objects by identity); setting a key again replaces
 * its value, as in a `Map`. Iteration is not offered: callers only look keys up.
 */
export class FewKeyMap<K, V> {
  #keys: K[];
  #values: V[];
  #size = 0;
  #map: Map<K, V> | undefined;

  /** `capacity`: how many keys the caller expects, at most; more may still be set. */
  constructor(capacity = 0) {
    if (capacity > SCAN_LIMIT) {
      this.#map = new Map();
      this.#keys = [];
      this.#values = [];
    } else {
      // Sized once: pushing onto an empty array reserved 17 slots at the first key.
      this.#keys = new Array<K>(capacity);
      this.#values = new Array<V>(capacity);
    }
  }

  get(key: K): V | undefined {
    if (this.#map) return this.#map.get(key);
    const keys = this.#keys;
    for (let i = 0; i < this.#size; i++) if (keys[i] === key) return this.#values[i];
    return undefined;
  }

  has(key: K): boolean {
    if (this.#map) return this.#map.has(key);
    const keys = this.#keys;
    for (let i = 0; i < this.#size; i++) if (keys[i] === key) return true;
    return false;
  }

  set(key: K, value: V): void {
    if (this.#map) {
      this.#map.set(key, value);
      return;
    }
    const keys = this.#keys;
    const size = this.#size;
    for (let i = 0; i < size; i++)
      if (keys[i] === key) {
        this.#values[i] = value;
        return;
      }
    if (size === SCAN_LIMIT) {
      const map = (this.#map = new Map<K, V>());
      for (let i = 0; i < size; i++) map.set(keys[i]!, this.#values[i]!);
      map.set(key, value);
      this.#keys = [];
      this.#values = [];
      return;
    }
    keys[size] = key;
    this.#values[size] = value;
    this.#size = size + 1;
  }
}
