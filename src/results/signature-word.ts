import {
  C,
  isDigit,
  isHex,
  isHexLetter,
  isWordChar,
  type NormalizeWork,
} from './signature-chars.js';

/**
 * The word of an error text at `start` (ASCII letters, digits, `_`), its numbers and ids replaced,
 * and where it ends:
 * - a UUID (8-4-4-4-12 hex digits) is `<id>`;
 * - a number, with its decimals, dotted versions and addresses (`1.5`, `1.2.3`, `127.0.0.1`), or a
 *   hex literal (`0x1f`), is `<n>`;
 * - each segment between underscores: all digits `<n>`; 8 or more hex digits with a digit among
 *   them, or 16 or more letters and digits with three digits or two runs of them, `<id>`;
 *   otherwise its leading digits (`30000ms` → `<n>ms`) and runs of three or more digits
 *   (`user123` → `user<n>`) are `<n>`, and shorter digit runs within it stay (`utf8`, `v2`).
 *
 * Reads the word a bounded number of times (a UUID check looks at most 36 characters ahead).
 */
export function signatureWord(
  s: string,
  start: number,
  end: number,
  work: NormalizeWork,
): { end: number; text: string } {
  if (isUuid(s, start, end, work)) return { end: start + 36, text: '<id>' };
  let j = start;
  for (; j < end && isWordChar(s.charCodeAt(j)); j++) work.steps++;
  if (isRun(s, start, j, isDigit)) {
    // `1.5`, `1.2.3` and `127.0.0.1` are one number.
    while (j + 1 < end && s.charCodeAt(j) === C.dot && isDigit(s.charCodeAt(j + 1)))
      for (j++; j < end && isDigit(s.charCodeAt(j)); j++) work.steps++;
    return { end: j, text: '<n>' };
  }
  if (
    j - start > 2 &&
    s.charCodeAt(start) === C.zero &&
    (s.charCodeAt(start + 1) | 0x20) === 120 /* x */ &&
    isRun(s, start + 2, j, isHex)
  )
    return { end: j, text: '<n>' };
  let text = '';
  for (let segment = start; segment < j;) {
    let segmentEnd = segment;
    while (segmentEnd < j && s.charCodeAt(segmentEnd) !== C.underscore) segmentEnd++;
    text += segmentText(s, segment, segmentEnd, work);
    if (segmentEnd < j) text += '_';
    segment = segmentEnd + 1;
  }
  return { end: j, text };
}

function segmentText(s: string, start: number, end: number, work: NormalizeWork): string {
  let digits = 0;
  let digitRuns = 0;
  let hex = true;
  for (let j = start; j < end; j++) {
    work.steps++;
    const c = s.charCodeAt(j);
    if (isDigit(c)) {
      digits++;
      if (j === start || !isDigit(s.charCodeAt(j - 1))) digitRuns++;
    } else if (!isHexLetter(c)) hex = false;
  }
  const length = end - start;
  if (digits === 0) return s.slice(start, end);
  if (digits === length) return '<n>';
  if ((hex && length >= 8) || (length >= 16 && (digitRuns >= 2 || digits >= 3))) return '<id>';
  work.steps += length;
  let text = '';
  for (let j = start; j < end;) {
    if (!isDigit(s.charCodeAt(j))) {
      text += s[j];
      j++;
      continue;
    }
    let k = j;
    while (k < end && isDigit(s.charCodeAt(k))) k++;
    text += j === start || k - j >= 3 ? '<n>' : s.slice(j, k);
    j = k;
  }
  return text;
}

/** `s` at `start` holds a UUID not followed by a word character. */
function isUuid(s: string, start: number, end: number, work: NormalizeWork): boolean {
  if (start + 36 > end || isWordChar(s.charCodeAt(start + 36))) return false;
  for (let k = 0; k < 36; k++) {
    work.steps++;
    const c = s.charCodeAt(start + k);
    if (k === 8 || k === 13 || k === 18 || k === 23 ? c !== C.minus : !isHex(c)) return false;
  }
  return true;
}

function isRun(s: string, start: number, end: number, test: (c: number) => boolean): boolean {
  for (let j = start; j < end; j++) if (!test(s.charCodeAt(j))) return false;
  return end > start;
}
