/**
 * JSON with object keys sorted, so equal values give equal strings. A value nested too deep for
 * the stack (arguments are untrusted: JSON.parse reads any depth), or one that contains itself,
 * gives a text of its own, equal to no other: such calls are never taken for repeats or
 * duplicates of each other. Each object's keys are listed, sorted and read once.
 *
 * The text is `JSON.stringify` of the value with every plain object's own enumerable keys in
 * order (array indexes first, ascending, then the rest by UTF-16 code units, as an object built
 * in sorted order enumerates them) and bigints as strings: `toJSON` is called as
 * `JSON.stringify` calls it, and what `JSON.stringify` leaves out (`undefined`, functions,
 * symbols) is left out or written `null` in the same places. `undefined` alone gives
 * `'undefined'`. Written here rather than through a `JSON.stringify` replacer, which built a
 * sorted copy of every object (`Object.fromEntries`, a property defined through V8's runtime per
 * key) for each call's arguments on every trace.
 */
export function stableJson(value: unknown): string {
  try {
    return write(value, '') ?? 'undefined';
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    return `\u0000too deep ${++tooDeep}`;
  }
}

let tooDeep = 0;

/** `value` (the value at `key` of its holder) as JSON, or `undefined` where JSON has none. */
function write(value: unknown, key: string): string | undefined {
  if (value !== null && (typeof value === 'object' || typeof value === 'bigint')) {
    const toJSON = (value as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === 'function') value = (toJSON as (key: string) => unknown).call(value, key);
  }
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      return Number.isFinite(value) ? String(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'bigint':
      // Digits and a sign: nothing to escape.
      return `"${value.toString()}"`;
    case 'object':
      if (value === null) return 'null';
      return Array.isArray(value)
        ? writeArray(value)
        : writeObject(value as Record<string, unknown>);
    default:
      return undefined;
  }
}

function writeArray(array: readonly unknown[]): string {
  let out = '[';
  for (let i = 0; i < array.length; i++) {
    if (i > 0) out += ',';
    out += write(array[i], String(i)) ?? 'null';
  }
  return `${out}]`;
}

function writeObject(object: Record<string, unknown>): string {
  const keys = sortedKeys(object);
  let out = '{';
  let first = true;
  for (const key of keys) {
    const text = write(object[key], key);
    if (text === undefined) continue;
    if (!first) out += ',';
    first = false;
    out += `${JSON.stringify(key)}:${text}`;
  }
  return `${out}}`;
}

/** An object's own enumerable keys: array indexes ascending, then the rest by code units. */
function sortedKeys(object: object): string[] {
  const keys = Object.keys(object);
  if (keys.length < 2) return keys;
  if (!keys.some(key => isArrayIndex(key))) return keys.sort();
  const indexes: string[] = [];
  const names: string[] = [];
  for (const key of keys) (isArrayIndex(key) ? indexes : names).push(key);
  indexes.sort((a, b) => Number(a) - Number(b));
  names.sort();
  return indexes.concat(names);
}

/** A canonical array index: an integer from 0 to 2^32 - 2 written without leading zeros. */
function isArrayIndex(key: string): boolean {
  const c = key.charCodeAt(0);
  if (c < 48 || c > 57) return false;
  if (key.length > 10 || !/^(?:0|[1-9]\d*)$/.test(key)) return false;
  return Number(key) < 4294967295;
}
