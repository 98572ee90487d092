/**
 * An upper bound on what RE2 (re2js) compiles `pattern` to, in instructions, read from its text in
 * one pass without compiling it: what compiling it costs (about 2 µs an instruction), and what
 * matching one character costs at worst. Every atom (a character, an escape, a class, `.`, `^`) is
 * one instruction; a group adds 2 (its captures) to what it holds, an alternative and `*`, `+`, `?`
 * one each; `x{n,m}` is `x` copied `m` times (`n + 1` for `x{n,}`), plus `m`; 4 for the program's
 * frame. Atoms that cost more to compile than one instruction count as they cost: a Unicode class
 * ({@link UNICODE_CLASS}), a negated class ({@link NEGATED_CLASS}), and a `[:` in a class that no
 * `:]` follows (RE2's parser looks for one to the end of the text each time: 10,000 of them, 30 KB,
 * took 360 ms), one per {@link SCAN_CHARS} characters it looks through. A text RE2 cannot parse
 * may be counted either way: it is refused before any size matters. Iterative, linear in the
 * text. Pure.
 */
export function patternSizeBound(pattern: string): number {
  // The enclosing groups' sizes so far; `last`: the size of the atom a quantifier would repeat.
  const open: Array<[total: number, last: number]> = [];
  let total = 4;
  let last = 0;
  let i = 0;
  const n = pattern.length;
  // Where the last `:]` starts: a `[:` after it starts no POSIX class.
  const lastPosixEnd = pattern.lastIndexOf(':]');
  const atom = (size: number) => {
    total += size;
    last = size;
  };
  while (i < n) {
    const c = pattern[i]!;
    if (c === '\\') {
      const end = escapeEnd(pattern, i);
      const kind = pattern[i + 1];
      // `\Q…\E` is a literal of each character in it; a quantifier repeats the last.
      if (kind === 'Q') {
        atom(Math.max(1, end - i - 4));
        last = 1;
      } else atom(kind === 'p' || kind === 'P' ? UNICODE_CLASS : 1);
      i = end;
    } else if (c === '[') {
      const [end, size] = classEnd(pattern, i, lastPosixEnd);
      atom(size);
      i = end;
    } else if (c === '(') {
      FLAGS.lastIndex = i;
      if (FLAGS.test(pattern)) {
        i = FLAGS.lastIndex; // flags only: `(?i)`
        continue;
      }
      open.push([total, last]);
      total = 0;
      last = 0;
      i++;
    } else if (c === ')') {
      const inner = total + 2;
      [total, last] = open.pop() ?? [0, 0];
      atom(inner);
      i++;
    } else if (c === '|') {
      total++;
      last = 0;
      i++;
    } else if (c === '*' || c === '+' || c === '?') {
      total++;
      last++;
      i++;
    } else if (c === '{' && ((REPEAT.lastIndex = i), REPEAT.test(pattern))) {
      const [low, high] = pattern.slice(i + 1, REPEAT.lastIndex - 1).split(',') as [
        string,
        string | undefined,
      ];
      // RE2 refuses a count past 1,000 (and nested counts whose product is), when parsing.
      const times = Math.min(
        MAX_REPEAT + 1,
        high === undefined ? Number(low) : high === '' ? Number(low) + 1 : Number(high),
      );
      const repeated = last * Math.max(times, 1) + times;
      total += repeated - last;
      last = repeated;
      i = REPEAT.lastIndex;
    } else {
      atom(1);
      i++;
    }
  }
  while (open.length) total += open.pop()![0] + 2; // unclosed: RE2 refuses it
  return total;
}

const FLAGS = /\(\?[a-zA-Z-]*\)/y;
const REPEAT = /\{\d+(?:,\d*)?\}/y;
const MAX_REPEAT = 1000;

/**
 * What compiling a Unicode class (`\pL`, `\P{Greek}`, or a class holding one) costs, in
 * instructions: its tables are copied and folded (8,000 `\pL` took 230 ms, 4,000 `(?i)[^\pL]`
 * 440 ms, where 4,000 plain instructions take about 9 ms).
 */
export const UNICODE_CLASS = 64;
/** What compiling a negated class (`[^a]`, all of Unicode but it) costs (6,000 `(?i)[^a]`: 57 ms). */
export const NEGATED_CLASS = 4;
/** Characters RE2's parser looks through, for a `:]` no `[:` finds, counted as one instruction. */
export const SCAN_CHARS = 1000;

// Past an escape at `i`: `\pL`, `\p{Greek}`, `\x{263a}`, `\Q…\E`, or a backslash and one character.
function escapeEnd(pattern: string, i: number): number {
  const kind = pattern[i + 1];
  if ((kind === 'p' || kind === 'P' || kind === 'x') && pattern[i + 2] === '{') {
    const close = pattern.indexOf('}', i);
    return close === -1 ? pattern.length : close + 1;
  }
  if (kind === 'Q') {
    const close = pattern.indexOf('\\E', i);
    return close === -1 ? pattern.length : close + 2;
  }
  return kind === 'p' || kind === 'P' ? i + 3 : i + 2;
}

// Past a character class that opens at `i` (`[^]a-z[:alpha:]\]]`), or the text's end, and what
// compiling it costs (see `patternSizeBound`). `lastPosixEnd`: where the text's last `:]` starts.
function classEnd(pattern: string, i: number, lastPosixEnd: number): [number, number] {
  let j = i + 1;
  let unicode = false;
  let scanned = 0;
  const negated = pattern[j] === '^';
  if (negated) j++;
  if (pattern[j] === ']') j++;
  while (j < pattern.length) {
    const c = pattern[j];
    if (c === ']') break;
    if (c === '\\') {
      if (pattern[j + 1] === 'p' || pattern[j + 1] === 'P') unicode = true;
      j = escapeEnd(pattern, j);
    } else if (c === '[' && pattern[j + 1] === ':') {
      if (j + 2 > lastPosixEnd) {
        scanned += pattern.length - j; // what RE2 looks through, known here without looking
        j++;
      } else j = pattern.indexOf(':]', j + 2) + 2;
    } else j++;
  }
  const size = unicode ? UNICODE_CLASS : negated ? NEGATED_CLASS : 1;
  return [j + 1, size + Math.ceil(scanned / SCAN_CHARS)];
}
