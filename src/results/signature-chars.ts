/**
 * Character classes of the failure-signature normalizer (`failure-signature.ts`), on UTF-16 code
 * units: each answers from one or two code units, so that no pass over an error text looks at a
 * character more than a bounded number of times.
 */

/** Counts the characters a normalization examined, for tests that bound its work. */
export interface NormalizeWork {
  steps: number;
}

/** The code units the normalizer tests for. */
export const C = {
  tab: 9,
  newline: 10,
  space: 32,
  doubleQuote: 34,
  hash: 35,
  singleQuote: 39,
  comma: 44,
  minus: 45,
  dot: 46,
  slash: 47,
  zero: 48,
  colon: 58,
  question: 63,
  at: 64,
  backslash: 92,
  underscore: 95,
  backtick: 96,
  braceOpen: 123,
  tilde: 126,
  leftSingle: 0x2018,
  rightSingle: 0x2019,
  leftDouble: 0x201c,
  rightDouble: 0x201d,
} as const;

/** Each character that opens a quoted string, and the one that closes it. */
export const QUOTE_CLOSE: ReadonlyMap<number, number> = new Map<number, number>([
  [C.doubleQuote, C.doubleQuote],
  [C.singleQuote, C.singleQuote],
  [C.backtick, C.backtick],
  [C.leftDouble, C.rightDouble],
  [C.leftSingle, C.rightSingle],
]);

export const isDigit = (c: number): boolean => c >= 48 && c <= 57;
export const isLetter = (c: number): boolean => (c | 0x20) >= 97 && (c | 0x20) <= 122;
export const isHexLetter = (c: number): boolean => (c | 0x20) >= 97 && (c | 0x20) <= 102;
export const isHex = (c: number): boolean => isDigit(c) || isHexLetter(c);
/** ASCII letters, digits and `_`: what a word is made of. */
export const isWordChar = (c: number): boolean => isDigit(c) || isLetter(c) || c === C.underscore;
/** A letter or digit of any script (for apostrophes: `l'homme`, `doesn’t`). */
export const isAlnum = (c: number): boolean => isDigit(c) || isLetter(c) || c >= 0xc0;
export const isHighSurrogate = (c: number): boolean => c >= 0xd800 && c <= 0xdbff;
const isLowSurrogate = (c: number): boolean => c >= 0xdc00 && c <= 0xdfff;

/** Whitespace and control characters: each run of them becomes one space. */
export function isSpace(c: number): boolean {
  return c <= C.space || c === 0x7f || c === 0x85 || c === 0xa0 || c === 0x2028 || c === 0x2029;
}

/**
 * Characters left out: bidirectional controls (they could make a signature read otherwise than it
 * is), zero-width ones, and unpaired surrogates.
 */
export function isInvisible(c: number, s: string, i: number): boolean {
  if (c < 0x200b) return false;
  if (c <= 0x200f || (c >= 0x202a && c <= 0x202e) || (c >= 0x2060 && c <= 0x2069) || c === 0xfeff)
    return true;
  if (isHighSurrogate(c)) return !isLowSurrogate(s.charCodeAt(i + 1));
  if (isLowSurrogate(c)) return !isHighSurrogate(s.charCodeAt(i - 1));
  return false;
}

/** Brackets, quotes and whitespace: what ends a URL. */
export function isBracketOrSpace(c: number): boolean {
  return (
    isSpace(c) ||
    QUOTE_CLOSE.has(c) ||
    c === C.rightDouble ||
    c === C.rightSingle ||
    c === 40 /* ( */ ||
    c === 41 /* ) */ ||
    c === 91 /* [ */ ||
    c === 93 /* ] */ ||
    c === C.braceOpen ||
    c === 125 /* } */ ||
    c === 60 /* < */ ||
    c === 62 /* > */
  );
}

/** What ends a token (a path or an e-mail address is one token): also `,`, `;`, `=` and `|`. */
export function isDelimiter(c: number): boolean {
  return isBracketOrSpace(c) || c === C.comma || c === 59 /* ; */ || c === 61 /* = */ || c === 124;
}

/** Sentence punctuation after a path or URL, left to the text. */
export const isTrailingPunctuation = (c: number): boolean =>
  c === C.dot || c === C.colon || c === 33 /* ! */ || c === C.question;
