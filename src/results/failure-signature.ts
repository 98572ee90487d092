import {
  C,
  isAlnum,
  isDelimiter,
  isInvisible,
  isSpace,
  isWordChar,
  QUOTE_CLOSE,
  type NormalizeWork,
} from './signature-chars.js';
import { cutText, cutTextMarked } from '../ingest/cut-text.js';
import { signatureToken } from './signature-token.js';
import { signatureWord } from './signature-word.js';

export type { NormalizeWork } from './signature-chars.js';

/**
 * The signature of a failed or refused tool call: its error text with what varies from one failure
 * to the next taken out, so that failures of one cause group together
 * (`GET /api/v1/tools/<tool>/failures`). Error texts come from traces, so they are untrusted: the
 * normalizer reads at most {@link MAX_ERROR_CHARS} characters, in passes that each look at a
 * character a bounded number of times (no regular expression: nothing can backtrack), and writes
 * at most {@link MAX_SIGNATURE_CHARS}.
 */

/** Characters of an error text read at most; the rest is never looked at. */
export const MAX_ERROR_CHARS = 2_000;

/** The longest signature, in characters; a longer one is cut and ends in `…`. */
export const MAX_SIGNATURE_CHARS = 200;

/** The signature of a failed call that recorded no error text (or only stack frames). */
export const NO_ERROR_TEXT = '(no error text)';

/**
 * The failure signature of an error text. Taken out, in order:
 * - stack frames: indented `at …` lines (JavaScript, Java, .NET), `... N more`, Python's
 *   `Traceback (most recent call last):` and each `File "…", line N` with its source line, and
 *   everything from a Go `goroutine N [...]:` on;
 * - quoted values (in `"…"`, `'…'`, backticks, `“…”` or `‘…’`, on one line) become `<str>`, except a
 *   JSON object key (a quoted string after `{` or `,` and before `:`), kept, and a JSON string
 *   value that reads as a message (after `:`, with a space in it), normalized in place: wrapped
 *   errors such as `{"error":"Tool x not found"}` keep what they say. An apostrophe between
 *   letters (`doesn't`) opens no quote;
 * - URLs keep their scheme and host (not a user or password), their path and query become
 *   `/<path>`; file paths (`./…`, `../…`, `~/…`, `C:\…`, `\\…`, and words with two slashes, or
 *   one and a file extension: `/tmp/x`, `/data.json`, not `</b>`) become `<path>`; e-mail
 *   addresses `<email>`;
 * - UUIDs and hex ids (8 or more hex digits, at least one of them a digit), and segments of a
 *   word (between underscores) of 16 or more characters mixing letters and digits, become
 *   `<id>` (such a segment needs three digits, or two runs of them: `getForecast2` stays);
 * - numbers (with their decimals, dotted versions and addresses: `1.5`, `127.0.0.1`, `0x1f`)
 *   become `<n>`, as do a word's leading digits (`30000ms` → `<n>ms`) and any run of three or
 *   more digits within it (`user123` → `user<n>`); shorter ones inside words stay (`utf8`, `v2`).
 *
 * Whitespace runs (newlines included) become one space, control characters a space, and
 * bidirectional and zero-width format characters and unpaired surrogates go. Case is kept.
 * Pure.
 *
 * @param work - when given, its `steps` grows by the characters examined (at most a small
 *   constant times the characters read).
 */
export function failureSignature(
  text: string | null | undefined,
  work: NormalizeWork = { steps: 0 },
): string {
  if (!text) return NO_ERROR_TEXT;
  const message = withoutStackFrames(cutText(text, MAX_ERROR_CHARS), work);
  const out = new Output();
  normalizeRange(message, 0, message.length, out, work, true);
  return out.text() || NO_ERROR_TEXT;
}

/** The signature being written: spaces collapsed, and no more than it will keep. */
class Output {
  private readonly parts: string[] = [];
  private length = 0;
  private pendingSpace = false;

  /** True once it holds more than a signature keeps: the rest need not be read. */
  get full(): boolean {
    return this.length > MAX_SIGNATURE_CHARS;
  }

  push(text: string): void {
    if (this.pendingSpace && this.length > 0) {
      this.parts.push(' ');
      this.length++;
    }
    this.pendingSpace = false;
    this.parts.push(text);
    this.length += text.length;
  }

  space(): void {
    this.pendingSpace = true;
  }

  text(): string {
    return cutTextMarked(this.parts.join(''), MAX_SIGNATURE_CHARS);
  }
}

/** The text without the lines of stack traces (see {@link failureSignature}). */
function withoutStackFrames(text: string, work: NormalizeWork): string {
  work.steps += text.length;
  if (!text.includes('\n')) return text;
  const kept: string[] = [];
  /** After a Python `File "…"` line: its indentation (the source line below is deeper). */
  let fileIndent = -1;
  for (let start = 0; start <= text.length;) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    work.steps += end - start + 1;
    let indent = start;
    while (indent < end && isSpace(text.charCodeAt(indent))) indent++;
    const depth = indent - start;
    const line = text.slice(indent, end);
    const sourceOfFrame = fileIndent >= 0 && depth > fileIndent;
    fileIndent = -1;
    if (line.startsWith('goroutine ') && line.endsWith(']:')) break;
    if (line.startsWith('File "') && line.includes('", line ')) fileIndent = depth;
    else if (
      !sourceOfFrame &&
      !(depth > 0 && line.startsWith('at ')) &&
      !(line.startsWith('... ') && line.endsWith(' more')) &&
      !line.startsWith('--- End of ') &&
      line !== 'Traceback (most recent call last):'
    )
      kept.push(text.slice(start, end));
    start = end + 1;
  }
  return kept.join('\n');
}

/**
 * Writes the normalized text of `s[start, end)` to `out` (see {@link failureSignature}); with
 * `quotes`, quoted strings are handled, else quote characters are text. Each branch consumes what
 * it examined, but for bounded lookaheads: a token is checked for a path once (tokens do not
 * overlap), and a quote that finds no closing one on its line records so (`noCloseUntil`), so that
 * no later quote of its kind on that line searches again.
 */
function normalizeRange(
  s: string,
  start: number,
  end: number,
  out: Output,
  work: NormalizeWork,
  quotes: boolean,
): void {
  const noCloseUntil = new Map<number, number>();
  let tokenCheckedUntil = -1;
  let lastNonSpace: number = C.space;
  let i = start;
  while (i < end && !out.full) {
    work.steps++;
    const c = s.charCodeAt(i);
    if (isSpace(c)) {
      out.space();
      i++;
      continue;
    }
    if (isInvisible(c, s, i)) {
      i++;
      continue;
    }
    if (
      i > tokenCheckedUntil &&
      !isDelimiter(c) &&
      (i === start || isDelimiter(s.charCodeAt(i - 1)))
    ) {
      tokenCheckedUntil = scanToken(s, i, end, work);
      const token = signatureToken(s, i, tokenCheckedUntil, end, work);
      if (token) {
        out.push(token.text);
        if (token.host) normalizeRange(s, token.host[0], token.host[1], out, work, false);
        if (token.tail) out.push(token.tail);
        lastNonSpace = s.charCodeAt(token.end - 1);
        i = token.end;
        continue;
      }
    }
    const close = quotes ? QUOTE_CLOSE.get(c) : undefined;
    if (close !== undefined && (c !== C.singleQuote || !isAlnum(s.charCodeAt(i - 1)))) {
      const j = closingQuote(s, i, end, close, noCloseUntil, work);
      if (j >= 0) {
        writeQuoted(s, i, j, lastNonSpace, out, work);
        lastNonSpace = close;
        i = j + 1;
        continue;
      }
    }
    if (isWordChar(c)) {
      const word = signatureWord(s, i, end, work);
      out.push(word.text);
      i = word.end;
    } else {
      out.push(s[i]!);
      i++;
    }
    lastNonSpace = s.charCodeAt(i - 1);
  }
}

/**
 * Where the quote opened at `open` closes on its line, or -1. A closing `'` or `’` must not be
 * followed by a letter or digit (that is an apostrophe); in `"…"`, a backslash escapes.
 */
function closingQuote(
  s: string,
  open: number,
  end: number,
  close: number,
  noCloseUntil: Map<number, number>,
  work: NormalizeWork,
): number {
  if ((noCloseUntil.get(close) ?? -1) >= open) return -1;
  const apostrophe = close === C.singleQuote || close === C.rightSingle;
  for (let j = open + 1; j < end; j++) {
    work.steps++;
    const c = s.charCodeAt(j);
    if (c === C.newline) {
      noCloseUntil.set(close, j);
      return -1;
    }
    if (c === C.backslash && close === C.doubleQuote) j++;
    else if (c === close && !(apostrophe && isAlnum(s.charCodeAt(j + 1)))) return j;
  }
  noCloseUntil.set(close, end);
  return -1;
}

/**
 * Writes the quoted string `s[open, close]`: a JSON key (after `{` or `,`, before `:`) as it is, a
 * JSON string value with a space in it (after `:`) normalized in place, anything else `<str>`.
 */
function writeQuoted(
  s: string,
  open: number,
  close: number,
  before: number,
  out: Output,
  work: NormalizeWork,
): void {
  let after = close + 1;
  for (; s.charCodeAt(after) === C.space || s.charCodeAt(after) === C.tab; after++) work.steps++;
  const key = (before === C.braceOpen || before === C.comma) && s.charCodeAt(after) === C.colon;
  let message = false;
  if (!key && before === C.colon)
    for (let j = open + 1; j < close && !message; j++) {
      work.steps++;
      message = s.charCodeAt(j) === C.space;
    }
  if (!key && !message) {
    out.push('<str>');
    return;
  }
  out.push(s[open]!);
  normalizeRange(s, open + 1, close, out, work, false);
  out.push(s[close]!);
}

/** The end of the token starting at `start`: the first delimiter after it. */
function scanToken(s: string, start: number, end: number, work: NormalizeWork): number {
  let j = start;
  for (; j < end && !isDelimiter(s.charCodeAt(j)); j++) work.steps++;
  return j;
}
