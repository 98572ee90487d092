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
 * Whether the JSON text `value` was parsed from (`jsonSourceText`) shows that the value's own JSON
 * is at most `maxChars` characters, without walking the value: false when there is no such text,
 * it is longer, or it holds what may grow (see {@link MAY_GROW}). The regular expression runs on
 * at most `maxChars` characters.
 */
export function sourceTextFits(value: unknown, maxChars: number): boolean {
  const text = jsonSourceText(value);
  return text !== undefined && text.length <= maxChars && !MAY_GROW.test(text);
}
