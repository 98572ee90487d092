/**
 * A surrogate without its pair, as a pattern's source (String#toWellFormed's rule; that method is
 * past the ES2023 library this project compiles against). For a caller that folds other
 * characters into the same pass (`sessionIdOf`).
 */
export const LONE_SURROGATE_SOURCE =
  '[\\ud800-\\udbff](?![\\udc00-\\udfff])|(?<![\\ud800-\\udbff])[\\udc00-\\udfff]';

const ANY_SURROGATE = /[\ud800-\udfff]/;
const LONE_SURROGATES = new RegExp(LONE_SURROGATE_SOURCE, 'g');

/**
 * `text` with each surrogate without its pair replaced by U+FFFD, as the Redis stores keep it:
 * they write text as UTF-8, where a lone surrogate can only be U+FFFD, while the memory driver
 * keeps a string as it was sent (only OTLP/JSON can send one, as `"\ud800"`). Applied at ingest to
 * what both drivers store, so that the same traffic reads the same on either. Pure; `text` itself
 * when it has no surrogate (one scan).
 */
export function wellFormedText(text: string): string {
  return ANY_SURROGATE.test(text) ? text.replace(LONE_SURROGATES, '\uFFFD') : text;
}
