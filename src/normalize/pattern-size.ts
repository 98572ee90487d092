/**
 * An upper bound on the instructions RE2 (re2js) compiles `pattern` to, read from its text in one
 * pass without compiling it: what compiling it costs (about 2 µs an instruction), and what matching
 * one character costs at worst. Every atom (a character, an escape, a class, `.`, `^`) is one
 * instruction; a group adds 2 (its captures) to what it holds, an alternative and `*`, `+`, `?`
 * one each; `x{n,m}` is `x` copied `m` times (`n + 1` for `x{n,}`), plus `m`; 4 for the program's
 * frame. A text RE2 cannot parse may be counted either way: it is refused before any size matters.
 * Iterative, linear in the text. Pure.
 */
export function patternSizeBound(pattern: string): number {
  // The enclosing groups' sizes so far; `last`: the size of the atom a quantifier would repeat.
  const open: Array<[total: number, last: number]> = [];
  let total = 4;
  let last = 0;
  let i = 0;
  const n = pattern.length;
  const atom = (size: number) => {
    total += size;
    last = size;
  };
  while (i < n) {
    const c = pattern[i]!;
    if (c === '\\') {
      const end = escapeEnd(pattern, i);
      // `\Q…\E` is a literal of each character in it; a quantifier repeats the last.
      atom(pattern[i + 1] === 'Q' ? Math.max(1, end - i - 4) : 1);
      last = 1;
      i = end;
    } else if (c === '[') {
      i = classEnd(pattern, i);
      atom(1);
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
  return i + 2;
}

// Past a character class that opens at `i` (`[^]a-z[:alpha:]\]]`), or the text's end.
function classEnd(pattern: string, i: number): number {
  let j = i + 1;
  if (pattern[j] === '^') j++;
  if (pattern[j] === ']') j++;
  while (j < pattern.length) {
    const c = pattern[j];
    if (c === ']') return j + 1;
    if (c === '\\') j = escapeEnd(pattern, j);
    else if (c === '[' && pattern[j + 1] === ':') {
      const close = pattern.indexOf(':]', j + 2);
      j = close === -1 ? j + 1 : close + 2;
    } else j++;
  }
  return j;
}
