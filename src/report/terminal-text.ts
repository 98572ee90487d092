/**
 * C0 and C1 control characters and DEL, which a terminal reads as commands (ANSI escapes), and
 * the bidirectional controls (embeddings, overrides, isolates, marks), which make a terminal that
 * lays out bidirectional text show what follows them reordered: `\u202E` makes `fail` show as
 * `liaf`, and the cells after it read right to left.
 */
const CONTROL =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;

/**
 * Text from traces and suites for one cell of a terminal table or one value of a line: control
 * characters (an escape sequence could clear the screen, recolour or hide what follows, or print
 * a link) and bidirectional controls become U+FFFD,
 * and whitespace runs, newlines included (which would start a row of the text's own), one space.
 */
export function terminalText(text: string): string {
  return text.replace(CONTROL, '\uFFFD').replace(/\s+/g, ' ');
}
