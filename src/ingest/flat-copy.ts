/**
 * Characters from which V8 makes a slice (`slice`, `substring`, `trim`) a view of its parent
 * rather than a copy (`SlicedString::kMinLength`): a view keeps the whole parent alive.
 */
export const MIN_VIEW_CHARS = 13;

/**
 * `s` as a string of its own: equal to `s` code unit for code unit, holding no other string. A
 * name the pipeline cut or trimmed from what a sender wrote (`cutName`, then `trim`) is, in V8, a
 * view of the sender's whole attribute: 16 characters can keep 64 MiB alive. Where such a string
 * is kept past its trace (caches and counters keyed by names, the memory store's listed traces),
 * it is kept as this copy, so what is held is what is counted.
 *
 * Costs one copy of `s` (a few hundred nanoseconds for a name): call it where a string enters a
 * long-lived structure, not on a path taken per lookup.
 */
export function flatCopy(s: string): string {
  if (s.length < MIN_VIEW_CHARS) return s;
  // UTF-16LE both ways copies every code unit as it is (lone surrogates included), and V8 makes
  // the result a one-byte string when every unit fits one.
  return Buffer.from(s, 'utf16le').toString('utf16le');
}
