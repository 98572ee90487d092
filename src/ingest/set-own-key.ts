/**
 * Sets `key` on `out` as an own, enumerable property whatever the key: `JSON.parse` makes
 * `__proto__` an own key like any other, and assigning it would set `out`'s prototype instead (the
 * key lost from a copy: `{"__proto__": 1}` copied as `{}`, an extra argument no comparison saw).
 */
export function setOwnKey(out: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(out, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  else out[key] = value;
}
