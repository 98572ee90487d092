/**
 * An upper bound on what compiling `pattern` with RE2 (re2js) costs, in instructions (about 2 µs
 * each), read from its text in one pass without compiling it; the instructions in it are also
 * what matching one character costs at worst. Two parts, added:
 * - The program: every atom (a character, an escape, a class, `.`, `^`) is one instruction; a
 *   group adds 2 (its captures) to what it holds, an alternative and `*`, `+`, `?` one each;
 *   `x{n,m}` is `x` copied `m` times (`n + 1` for `x{n,}`), plus `m`; 4 for the program's frame.
 * - What RE2's parser builds once per piece of text, which a count's copies share: each Unicode
 *   class written (`\pL`, also inside `[…]`) {@link UNICODE_CLASS} for its tables, each negated
 *   class {@link NEGATED_CLASS}, each range folded by `(?i)` (in its scope: to its group's end, or
 *   `(?i:…)`) one per {@link FOLDED_CODE_POINTS} code points RE2 folds one by one
 *   ({@link foldedRangeCost}), and each `[:` in a class that no `:]` follows one per
 *   {@link SCAN_CHARS} characters the parser looks through for one (10,000 of them, 30 KB, took
 *   360 ms).
 * A text RE2 cannot parse may be counted either way: it is refused, with what it cost to parse up
 * to its fault counted. Iterative, linear in the text. Pure.
 */
export function patternSizeBound(pattern: string): number {
  // The enclosing groups' sizes so far and case folding; `last`: the size of the atom a
  // quantifier would repeat; `once`: compile costs paid once per text written, never repeated.
  const open: Array<[total: number, last: number, fold: boolean]> = [];
  let total = 4;
  let last = 0;
  let once = 0;
  let fold = false;
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
      } else {
        atom(1);
        if (kind === 'p' || kind === 'P') once += UNICODE_CLASS;
      }
      i = end;
    } else if (c === '[') {
      const [end, cost] = classEnd(pattern, i, lastPosixEnd, fold);
      atom(1);
      once += cost;
      i = end;
    } else if (c === '(') {
      FLAGS.lastIndex = i;
      const flags = FLAGS.exec(pattern);
      if (flags && flags[3] === ')') {
        fold = folds(flags, fold); // flags only, to the group's end: `(?i)`
        i = FLAGS.lastIndex;
        continue;
      }
      open.push([total, last, fold]);
      total = 0;
      last = 0;
      if (flags) fold = folds(flags, fold); // `(?i:…)`; its `?`, flags and `:` count as atoms
      i++;
    } else if (c === ')') {
      const inner = total + 2;
      [total, last, fold] = open.pop() ?? [0, 0, fold];
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
  return total + once;
}

// Whether case folding is on after flags `(?i-s…` read by FLAGS, with `fold` before them.
function folds(flags: RegExpExecArray, fold: boolean): boolean {
  if (flags[1]!.includes('i')) return true;
  return flags[2]?.includes('i') ? false : fold;
}

const FLAGS = /\(\?([a-zA-Z]*)(?:-([a-zA-Z]*))?([):])/y;
const REPEAT = /\{\d+(?:,\d*)?\}/y;
const MAX_REPEAT = 1000;

/**
 * What a Unicode class written (`\pL`, `\P{Greek}`, alone or in `[…]`) costs to compile, in
 * instructions, once however often a count copies it: its tables are copied and folded (8,000
 * `\pL` took 230 ms, 4,000 `(?i)[^\pL]` 440 ms, where 4,000 plain instructions take about 9 ms;
 * `^[\p{L}\p{N}_-]{1,64}$`, 131 instructions, compiles in well under a millisecond).
 */
export const UNICODE_CLASS = 64;
/** What a negated class written (`[^a]`, all of Unicode but it) costs (6,000 `(?i)[^a]`: 57 ms). */
export const NEGATED_CLASS = 4;
/** Characters RE2's parser looks through, for a `:]` no `[:` finds, counted as one instruction. */
export const SCAN_CHARS = 1000;

// Past an escape at `i`: `\pL`, `\p{Greek}`, `\x{263a}`, `\x41`, `\101`, `\Q…\E`, or a backslash
// and one character.
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
  if (kind === 'x') return Math.min(pattern.length, i + 4);
  if (kind !== undefined && kind >= '0' && kind <= '7') {
    let end = i + 2;
    while (end < i + 4 && pattern[end]! >= '0' && pattern[end]! <= '7') end++;
    return end;
  }
  return kind === 'p' || kind === 'P' ? i + 3 : i + 2;
}

// Past a character class that opens at `i` (`[^]a-z[:alpha:]\\]]`), or the text's end, and what
// compiling it costs once, beyond its one instruction (see `patternSizeBound`): its Unicode
// tables, its negation, RE2's scans for a `:]`, and under `fold` its ranges folded code point by
// code point. `lastPosixEnd`: where the text's last `:]` starts.
function classEnd(
  pattern: string,
  i: number,
  lastPosixEnd: number,
  fold: boolean,
): [end: number, cost: number] {
  let j = i + 1;
  let cost = 0;
  let scanned = 0;
  if (pattern[j] === '^') {
    cost += NEGATED_CLASS;
    j++;
  }
  // A `]` first is a character of the class, which may start a range (`[]-\x{1E942}]`).
  for (let first = true; j < pattern.length && (first || pattern[j] !== ']'); first = false) {
    const c = pattern[j];
    let low: number | undefined;
    if (c === '\\') {
      if (pattern[j + 1] === 'p' || pattern[j + 1] === 'P') cost += UNICODE_CLASS;
      else low = escapeValue(pattern, j);
      j = escapeEnd(pattern, j);
    } else if (c === '[' && pattern[j + 1] === ':') {
      if (j + 2 > lastPosixEnd) {
        scanned += pattern.length - j; // what RE2 looks through, known here without looking
        j++;
      } else j = pattern.indexOf(':]', j + 2) + 2;
    } else {
      low = pattern.codePointAt(j)!;
      j += low > 0xffff ? 2 : 1;
    }
    // A range `low-high`: folded, each code point in the folding range is folded on its own.
    if (low === undefined || pattern[j] !== '-' || j + 1 >= pattern.length) continue;
    if (pattern[j + 1] === ']') continue;
    j++;
    let high: number | undefined;
    if (pattern[j] === '\\') {
      high = escapeValue(pattern, j);
      j = escapeEnd(pattern, j);
    } else {
      high = pattern.codePointAt(j)!;
      j += high > 0xffff ? 2 : 1;
    }
    if (fold) cost += foldedRangeCost(low, high ?? MAX_FOLD);
  }
  return [j + 1, cost + Math.ceil(scanned / SCAN_CHARS)];
}

/**
 * What folding a range's case costs when compiling, in instructions: RE2 folds each of its code
 * points in the folding range ({@link MIN_FOLD} to {@link MAX_FOLD}) one by one, unless the range
 * holds it whole. `(?i)[B-\x{1E942}]` folds 124,000 code points (2,400 of them took 11.3 s).
 */
export function foldedRangeCost(low: number, high: number): number {
  if (low <= MIN_FOLD && high >= MAX_FOLD) return 0;
  const width = Math.min(high, MAX_FOLD) - Math.max(low, MIN_FOLD) + 1;
  return width > 0 ? Math.ceil(width / FOLDED_CODE_POINTS) : 0;
}

/** The code points RE2 folds case over (`Unicode.MIN_FOLD`, `MAX_FOLD` in re2js). */
export const MIN_FOLD = 0x41;
export const MAX_FOLD = 0x1e943;
/** Code points of a range folded in the time one instruction compiles (about 2 µs). */
export const FOLDED_CODE_POINTS = 50;

// The code point an escape at `i` in a class stands for (`\x{1E942}`, `\x41`, `\101`, `\n`,
// `\-`), or undefined for a class (`\d`) or one RE2 refuses.
function escapeValue(pattern: string, i: number): number | undefined {
  const kind = pattern[i + 1];
  if (kind === undefined) return undefined;
  if (kind === 'x') {
    const digits =
      pattern[i + 2] === '{'
        ? pattern.slice(i + 3, escapeEnd(pattern, i) - 1)
        : pattern.slice(i + 2, i + 4);
    return /^[0-9a-fA-F]{1,8}$/.test(digits) ? parseInt(digits, 16) : undefined;
  }
  const octal = /^[0-7]{1,3}/.exec(pattern.slice(i + 1, i + 4));
  if (octal) return parseInt(octal[0], 8);
  const control = CONTROLS.indexOf(kind);
  if (control !== -1) return CONTROL_CODES[control];
  return /[0-9A-Za-z_]/.test(kind) ? undefined : kind.codePointAt(0);
}

const CONTROLS = 'aftnrv';
const CONTROL_CODES = [7, 12, 9, 10, 13, 11];
