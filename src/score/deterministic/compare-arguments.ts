import { distance } from 'fastest-levenshtein';
import { isRecord } from '../../normalize/attribute-values.js';
import { setOwnKey } from '../../ingest/set-own-key.js';

/** How expected arguments are compared with a call's arguments. */
export type ArgumentMode = 'ignore' | 'exact' | 'subset' | 'partial' | 'fuzzy';

/**
 * Scores how well a call's arguments match the expected ones, from 0 to 1.
 * - `ignore`: always 1.
 * - `exact`: deep equality (object key order ignored, numbers and strings not coerced): 1 or 0.
 * - `subset`: every expected key is present with an equal (recursively subset) value; extra
 *   actual keys are allowed: 1 or 0.
 * - `partial`: the share of expected keys whose values are equal, recursively (extra actual keys
 *   ignored); arrays compare element-wise and must have the same length.
 * - `fuzzy`: like `partial`, but strings score by Levenshtein similarity (case and surrounding
 *   space ignored), numbers by relative difference, and a number equals its decimal string.
 *
 * `ignoreKeys` removes keys before comparing: a plain key (`request_id`) at any depth, a dotted
 * path (`meta.timestamp`) from the top.
 */
export function compareArguments(
  expected: unknown,
  actual: unknown,
  mode: ArgumentMode,
  ignoreKeys: readonly string[] = [],
): number {
  if (mode === 'ignore') return 1;
  const e = ignoreKeys.length ? strip(expected, ignoreKeys, '') : expected;
  const a = ignoreKeys.length ? strip(actual, ignoreKeys, '') : actual;
  switch (mode) {
    case 'exact':
      return deepEqual(e, a) ? 1 : 0;
    case 'subset':
      return isSubset(e, a) ? 1 : 0;
    case 'partial':
      return similarity(e, a, false, 0);
    case 'fuzzy':
      return similarity(e, a, true, 0);
  }
}

/** Deep equality with object key order ignored. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a === 'number' && typeof b === 'number') return Number.isNaN(a) && Number.isNaN(b);
  if (Array.isArray(a))
    return Array.isArray(b) && a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  if (isRecord(a) && isRecord(b)) {
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    return ka.every(k => Object.hasOwn(b, k) && deepEqual(a[k], b[k]));
  }
  return false;
}

function isSubset(expected: unknown, actual: unknown): boolean {
  if (isRecord(expected)) {
    return (
      isRecord(actual) &&
      Object.keys(expected).every(k => Object.hasOwn(actual, k) && isSubset(expected[k], actual[k]))
    );
  }
  if (Array.isArray(expected)) {
    return (
      Array.isArray(actual) &&
      expected.length === actual.length &&
      expected.every((x, i) => isSubset(x, actual[i]))
    );
  }
  return deepEqual(expected, actual);
}

function similarity(expected: unknown, actual: unknown, fuzzy: boolean, depth: number): number {
  if (depth > 32) return deepEqual(expected, actual) ? 1 : 0;
  if (isRecord(expected)) {
    const keys = Object.keys(expected);
    if (keys.length === 0) return isRecord(actual) ? 1 : 0;
    if (!isRecord(actual)) return 0;
    let sum = 0;
    for (const k of keys)
      sum += Object.hasOwn(actual, k) ? similarity(expected[k], actual[k], fuzzy, depth + 1) : 0;
    return sum / keys.length;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual) || actual.length !== expected.length) return 0;
    if (expected.length === 0) return 1;
    let sum = 0;
    expected.forEach((x, i) => (sum += similarity(x, actual[i], fuzzy, depth + 1)));
    return sum / expected.length;
  }
  if (deepEqual(expected, actual)) return 1;
  if (!fuzzy) return 0;
  return scalarSimilarity(expected, actual);
}

function scalarSimilarity(expected: unknown, actual: unknown): number {
  const en = asNumber(expected);
  const an = asNumber(actual);
  if (en !== undefined && an !== undefined) {
    if (en === an) return 1;
    const scale = Math.max(Math.abs(en), Math.abs(an));
    return Math.max(0, 1 - Math.abs(en - an) / scale);
  }
  if (typeof expected === 'string' && typeof actual === 'string') {
    const x = expected.trim().toLowerCase();
    const y = actual.trim().toLowerCase();
    const longest = Math.max(x.length, y.length);
    return longest === 0 ? 1 : 1 - distance(x, y) / longest;
  }
  return 0;
}

function asNumber(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value)))
    return Number(value);
  return undefined;
}

function strip(value: unknown, ignore: readonly string[], path: string): unknown {
  if (Array.isArray(value)) return value.map(v => strip(v, ignore, path));
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    const full = path ? `${path}.${k}` : k;
    if (ignore.includes(k) || ignore.includes(full)) continue;
    setOwnKey(out, k, strip(v, ignore, full));
  }
  return out;
}
