/**
 * Whether `value` is an object or array of plain JSON data (plain objects, arrays, strings, finite
 * numbers, booleans, null) whose `JSON.stringify` text is certainly at most `maxChars` UTF-16
 * units long. What is counted is a bound, not the text: a number as 25 characters (the longest a
 * double writes), every surrogate as escaped; so a value close to the limit may be refused, never
 * one past it. Anything else (a string, a `Date`, a class's instance, `undefined`, a bigint, an
 * array with holes) is refused, as `JSON.stringify` would write it otherwise or not at all.
 * Allocates nothing; visits at most about `maxChars` values and characters, whatever the value
 * holds (each counts one character at least), so a hostile value costs no more. One cost is not
 * its own: `for…in` over an object has V8 list the object's keys before the first, so an object
 * of many keys costs their listing (a value from a trace was parsed from text within
 * `INPUT_BOUNDS.maxJsonChars`, which cost as much).
 */
export function jsonFitsWithin(value: unknown, maxChars: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  return charsOf(value, maxChars) <= maxChars;
}

/** The bound of `value`'s JSON length, or more than `budget` once past it (and then not exact). */
function charsOf(value: unknown, budget: number): number {
  switch (typeof value) {
    case 'string':
      return stringChars(value, budget);
    case 'number':
      return Number.isFinite(value) ? MAX_NUMBER_CHARS : Infinity;
    case 'boolean':
      return value ? 4 : 5;
    case 'object':
      break;
    default:
      return Infinity;
  }
  if (value === null) return 4;
  let chars = 2; // the brackets or braces
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length && chars <= budget; i++) {
      if (!(i in value)) return Infinity;
      chars += (i > 0 ? 1 : 0) + charsOf(value[i], budget - chars);
    }
    return chars;
  }
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return Infinity;
  let first = true;
  for (const key in value) {
    if (chars > budget) break;
    // The key, its colon and the comma before it.
    chars += stringChars(key, budget - chars) + (first ? 1 : 2);
    chars += charsOf((value as Record<string, unknown>)[key], budget - chars);
    first = false;
  }
  return chars;
}

/**
 * The most characters a finite double writes: a negative one in (-1e-5, -1e-6] with 17 digits
 * (`-0.0000012345678901234567`); an exponent's form writes at most 24
 * (`-2.2250738585072014e-308`).
 */
const MAX_NUMBER_CHARS = 25;

/** A string's JSON length, quotes included, bounded (every surrogate counted as `\uXXXX`). */
function stringChars(text: string, budget: number): number {
  let chars = 2;
  for (let i = 0; i < text.length && chars <= budget; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 || c === 0x5c) chars += 2;
    else if (c < 0x20 || (c >= 0xd800 && c <= 0xdfff)) chars += 6;
    else chars++;
  }
  return chars;
}
