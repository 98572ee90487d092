import {
  C,
  isBracketOrSpace,
  isDigit,
  isLetter,
  isTrailingPunctuation,
  isWordChar,
  type NormalizeWork,
} from './signature-chars.js';

/**
 * What a token of an error text is replaced with: `text`, then, for a URL, its host (the range
 * `host` of the text, to be normalized as text) and `tail` (`/<path>` or `/`); `end` is where the
 * replaced token ends.
 */
export interface TokenReplacement {
  end: number;
  text: string;
  host?: readonly [start: number, end: number];
  tail?: string;
}

/**
 * The replacement of the token `s[start, end)` (ended by a delimiter, see `isDelimiter`) when it
 * is a URL (`scheme://host/<path>`: the host kept without user and password, path and query out;
 * a URL's query runs on past `=`, `,`, `;` and `|` up to `limit`), a file path (`<path>`) or an
 * e-mail address (`<email>`); `undefined` when it is none of them. Trailing `.`, `:`, `!` and `?`
 * are left to the text. Reads the token once (and a URL's query once more).
 */
export function signatureToken(
  s: string,
  start: number,
  end: number,
  limit: number,
  work: NormalizeWork,
): TokenReplacement | undefined {
  while (end > start && isTrailingPunctuation(s.charCodeAt(end - 1))) end--;
  if (end - start < 2) return undefined;
  let slashes = 0;
  let backslashes = 0;
  let at = -1;
  let dotAfterAt = false;
  let schemeEnd = -1;
  let schemeOk = isLetter(s.charCodeAt(start));
  for (let j = start; j < end; j++) {
    work.steps++;
    const c = s.charCodeAt(j);
    if (c === C.slash) slashes++;
    else if (c === C.backslash) backslashes++;
    else if (c === C.at) at = at < 0 ? j : at;
    else if (c === C.dot && at >= 0) dotAfterAt = true;
    if (schemeOk && schemeEnd < 0) {
      if (c === C.colon && s.startsWith('//', j + 1)) schemeEnd = j;
      else if (!isSchemeChar(c)) schemeOk = false;
    }
  }
  if (schemeEnd > start) return url(s, start, schemeEnd, end, limit, work);
  if (isPath(s, start, end, slashes, backslashes)) return { end, text: '<path>' };
  if (at > start && dotAfterAt && at < end - 3 && isWordChar(s.charCodeAt(at - 1)))
    return { end, text: '<email>' };
  return undefined;
}

function url(
  s: string,
  start: number,
  schemeEnd: number,
  end: number,
  limit: number,
  work: NormalizeWork,
): TokenReplacement {
  while (end < limit && !isBracketOrSpace(s.charCodeAt(end))) {
    work.steps++;
    end++;
  }
  while (end > start && isTrailingPunctuation(s.charCodeAt(end - 1))) end--;
  let hostStart = schemeEnd + 3;
  let hostEnd = hostStart;
  for (; hostEnd < end && !isUrlPathStart(s.charCodeAt(hostEnd)); hostEnd++)
    if (s.charCodeAt(hostEnd) === C.at) hostStart = hostEnd + 1;
  const tail =
    hostEnd === end ? undefined : hostEnd + 1 === end && s[hostEnd] === '/' ? '/' : '/<path>';
  return {
    end,
    text: s.slice(start, schemeEnd + 3),
    ...(hostEnd > hostStart && { host: [hostStart, hostEnd] as const }),
    ...(tail && { tail }),
  };
}

/**
 * `./…`, `../…`, `~/…`, `\\…`, `C:\…` or `C:/…`, or two slashes (or backslashes: `/tmp/x`,
 * `src/a/b`), or one slash and a file extension at the end (`/data.json`, `src/index.ts:12:5`);
 * not `/b` (as in `</b>`) nor `and/or`.
 */
function isPath(
  s: string,
  start: number,
  end: number,
  slashes: number,
  backslashes: number,
): boolean {
  const first = s.charCodeAt(start);
  const second = s.charCodeAt(start + 1);
  const third = s.charCodeAt(start + 2);
  return (
    (first === C.dot && (second === C.slash || (second === C.dot && third === C.slash))) ||
    (first === C.tilde && second === C.slash) ||
    (first === C.backslash && second === C.backslash) ||
    (isLetter(first) && second === C.colon && (third === C.backslash || third === C.slash)) ||
    slashes >= 2 ||
    backslashes >= 2 ||
    (slashes === 1 && hasFileExtension(s, start, end))
  );
}

/** The token ends in `.ext` (1 to 5 letters), maybe followed by `:line:column`. */
function hasFileExtension(s: string, start: number, end: number): boolean {
  let j = end;
  while (j > start && (isDigit(s.charCodeAt(j - 1)) || s.charCodeAt(j - 1) === C.colon)) j--;
  let letters = 0;
  for (; j > start && isLetter(s.charCodeAt(j - 1)); j--) letters++;
  return letters >= 1 && letters <= 5 && s.charCodeAt(j - 1) === C.dot;
}

const isSchemeChar = (c: number): boolean =>
  isLetter(c) || isDigit(c) || c === 43 /* + */ || c === C.minus || c === C.dot;

const isUrlPathStart = (c: number): boolean => c === C.slash || c === C.question || c === C.hash;
