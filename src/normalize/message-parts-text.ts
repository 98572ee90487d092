import { INPUT_BOUNDS, inputBoundHits } from './input-bounds.js';
import { appendToolCallsAt } from './message-tool-calls.js';
import type { ExtractedCall } from './tool-call.js';

/**
 * The tool calls of OTel GenAI messages JSON text (`gen_ai.output.messages`), appended to `out`
 * as `appendToolCallsIn` appends them, reading only the parts: each `parts` entry is parsed on
 * its own, and the messages around them are checked, not built. Parsing the text whole built a
 * list, a message and a parts list only to reach the parts: about 150 of the 300 bytes a model
 * response of one call took.
 *
 * Only text of the shape the conventions write is read here: a list of messages whose keys are
 * `role` and `finish_reason` (strings without escapes) and `parts` (a list of objects), each at
 * most once. Anything else (another key, an escape, a value of another type, text that is not
 * JSON) returns `false` with nothing appended and nothing counted: the caller then reads the text
 * whole (`appendToolCallsIn`), with the same result. What is appended is what parsing the text
 * whole finds: JSON parses a part the same wherever it stands, and such a message is no tool call
 * itself, so its calls are its parts'.
 *
 * Bounded as `parseMaybeJson` is: text past `INPUT_BOUNDS`' length or depth returns `false`, for
 * the caller's read to leave unparsed and count. One pass over the text besides the parts' parses
 * (the depth is counted as a part's end is found, not by a scan of its own first: a part past it
 * stops the read, with the parts before it parsed and undone); no recursion.
 */
export function appendPartsToolCalls(text: string, out: ExtractedCall[]): boolean {
  const i = skipSpace(text, 0);
  if (codeAt(text, i) !== OPEN_LIST) return false;
  // The length bound here; the depth bound as the parts' ends are found (`objectEnd`): the
  // messages around them are three levels, whatever the text.
  if (text.length > INPUT_BOUNDS.maxJsonChars) return false;
  // A part's calls are appended before the text after it is checked: undone when that fails,
  // with the bounds its arguments' parses counted (the caller's whole read would count none).
  const first = out.length;
  const long = inputBoundHits.longJson;
  const deep = inputBoundHits.deepJson;
  const end = readMessages(text, skipSpace(text, i + 1), out);
  if (end === text.length) return true;
  out.length = first;
  inputBoundHits.longJson = long;
  inputBoundHits.deepJson = deep;
  return false;
}

/** Reads the messages from `i` (past the list's `[`): the index past the text, -1 if not read. */
function readMessages(text: string, i: number, out: ExtractedCall[]): number {
  if (codeAt(text, i) === CLOSE_LIST) return skipSpace(text, i + 1);
  for (;;) {
    i = readMessage(text, i, out);
    if (i < 0) return -1;
    const c = codeAt(text, i);
    if (c === CLOSE_LIST) return skipSpace(text, i + 1);
    if (c !== COMMA) return -1;
    i = skipSpace(text, i + 1);
  }
}

/** Reads one message at `i`: the index past it and the space after, -1 if not read. */
function readMessage(text: string, i: number, out: ExtractedCall[]): number {
  if (codeAt(text, i) !== OPEN_OBJECT) return -1;
  i = skipSpace(text, i + 1);
  if (codeAt(text, i) === CLOSE_OBJECT) return skipSpace(text, i + 1);
  let seen = 0;
  for (;;) {
    const key = text.startsWith(PARTS, i)
      ? KEY_PARTS
      : text.startsWith(ROLE, i)
        ? KEY_ROLE
        : text.startsWith(FINISH_REASON, i)
          ? KEY_FINISH_REASON
          : 0;
    // A key read twice: JSON.parse keeps the last, which this does not follow.
    if (key === 0 || (seen & key) !== 0) return -1;
    seen |= key;
    i = skipSpace(text, i + KEY_CHARS[key]!);
    if (codeAt(text, i) !== COLON) return -1;
    i = skipSpace(text, i + 1);
    i = key === KEY_PARTS ? readParts(text, i, out) : plainStringEnd(text, i);
    if (i < 0) return -1;
    i = skipSpace(text, i);
    const c = codeAt(text, i);
    if (c === CLOSE_OBJECT) return skipSpace(text, i + 1);
    if (c !== COMMA) return -1;
    i = skipSpace(text, i + 1);
  }
}

/** Reads a `parts` list at `i`, appending its calls: the index past it, -1 if not read. */
function readParts(text: string, i: number, out: ExtractedCall[]): number {
  if (codeAt(text, i) !== OPEN_LIST) return -1;
  i = skipSpace(text, i + 1);
  if (codeAt(text, i) === CLOSE_LIST) return i + 1;
  for (;;) {
    if (codeAt(text, i) !== OPEN_OBJECT) return -1;
    const end = objectEnd(text, i, INPUT_BOUNDS.maxJsonDepth - PARTS_DEPTH);
    if (end < 0) return -1;
    let part: unknown;
    try {
      part = JSON.parse(text.slice(i, end));
    } catch {
      return -1;
    }
    // Where parsing the text whole puts a part: in a list (0), a message (1), its parts (2).
    appendToolCallsAt(part, 3, out);
    i = skipSpace(text, end);
    const c = codeAt(text, i);
    if (c === CLOSE_LIST) return i + 1;
    if (c !== COMMA) return -1;
    i = skipSpace(text, i + 1);
  }
}

/**
 * The index past the object that starts at `i`, found by counting brackets outside strings
 * (whether it is JSON is for `JSON.parse` to say); -1 when the text ends first, or when its
 * objects and arrays, its own included, nest deeper than `maxDepth` (it stops at the first
 * bracket past it).
 */
function objectEnd(text: string, i: number, maxDepth: number): number {
  let depth = 0;
  for (; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i = stringEnd(text, i) - 1;
      if (i < 0) return -1;
    } else if (c === OPEN_OBJECT || c === OPEN_LIST) {
      if (++depth > maxDepth) return -1;
    } else if ((c === CLOSE_OBJECT || c === CLOSE_LIST) && --depth === 0) return i + 1;
  }
  return -1;
}

/** The index past the string that starts at `i` (escapes skipped, not checked); -1 if unclosed. */
function stringEnd(text: string, i: number): number {
  for (let q = text.indexOf('"', i + 1); q !== -1; q = text.indexOf('"', q + 1)) {
    // The quote closes the string unless an odd run of backslashes escapes it.
    let slashes = 0;
    while (text.charCodeAt(q - 1 - slashes) === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return q + 1;
  }
  return -1;
}

/**
 * The index past the string at `i` when it has no escape and no control character (JSON's own
 * rules for one without escapes), else -1.
 */
function plainStringEnd(text: string, i: number): number {
  if (codeAt(text, i) !== QUOTE) return -1;
  for (i++; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) return i + 1;
    if (c === BACKSLASH || c < 0x20) return -1;
  }
  return -1;
}

/**
 * The character code at `i`, or -1 at or past the text's end. Every read here that can land on
 * the end goes through it: one `charCodeAt` out of bounds makes V8 drop its inline read of that
 * call site (and of every site it inlined into) for a call out, for the process's life: a
 * part's read cost about 200 instructions more after a few cut-short texts (text cut at a
 * sender's attribute length limit is common). `skipSpace` read past the end of every text.
 */
function codeAt(text: string, i: number): number {
  return i < text.length ? text.charCodeAt(i) : -1;
}

/**
 * The index of the first character at or after `i` that is not JSON whitespace, or the text's
 * length when there is none (it never reads past the end: see `codeAt`).
 */
function skipSpace(text: string, i: number): number {
  for (; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 32 && c !== 10 && c !== 13 && c !== 9) return i;
  }
  return i;
}

/** Levels around a part: the list of messages, a message, its `parts`. */
const PARTS_DEPTH = 3;

const OPEN_LIST = 91; // [
const CLOSE_LIST = 93; // ]
const OPEN_OBJECT = 123; // {
const CLOSE_OBJECT = 125; // }
const COMMA = 44;
const COLON = 58;
const QUOTE = 34;
const BACKSLASH = 92;

const ROLE = '"role"';
const PARTS = '"parts"';
const FINISH_REASON = '"finish_reason"';
const KEY_ROLE = 1;
const KEY_PARTS = 2;
const KEY_FINISH_REASON = 4;
/** Characters of each key, quotes included, by its bit. */
const KEY_CHARS: readonly number[] = [0, ROLE.length, PARTS.length, 0, FINISH_REASON.length];
