import { jsonSourceText } from '../normalize/content-attribute.js';

/**
 * What in JSON text may make `JSON.stringify`'s text of its value longer than it: a number with
 * an exponent (`1e20`, four characters, is written in 21), an integer of 16 digits or more
 * (`9999999999999999` rounds to `10000000000000000`, a digit more) and a lone surrogate (one
 * character, written as six, `\udxxx`). Spacing, escapes, decimals, shorter integers and repeated
 * keys are written in as many characters or fewer. Digits inside a string match too (the value is
 * then measured).
 */
const MAY_GROW = /\d[eE]|\d{16}|[\ud800-\udfff]/u;

/**
 * The most characters `JSON.stringify` writes of one character of the JSON text it parsed: a lone
 * surrogate, one unit, is written as six (`\udxxx`); a number grows less (`1e20`, four
 * characters, is written in 21); nothing else grows (see {@link MAY_GROW}).
 */
const MAX_GROWTH = 6;

/**
 * Whether the JSON text `value` was parsed from (`jsonSourceText`) shows that the value's own JSON
 * is at most `maxChars` characters, without walking the value: false when there is no such text,
 * it is longer, or it holds what may grow (see {@link MAY_GROW}) and is long enough that growing
 * could pass the bound (a text of at most a sixth of `maxChars` fits whatever it holds, and is
 * not searched: most calls' arguments). The regular expression runs on at most `maxChars`
 * characters.
 */
export function sourceTextFits(value: unknown, maxChars: number): boolean {
  const text = jsonSourceText(value);
  if (text === undefined || text.length > maxChars) return false;
  return text.length * MAX_GROWTH <= maxChars || !MAY_GROW.test(text);
}
