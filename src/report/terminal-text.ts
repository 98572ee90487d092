/** C0 and C1 control characters and DEL, which a terminal reads as commands (ANSI escapes). */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/g;

/**
 * Text from traces and suites for one cell of a terminal table: control characters (an escape
 * sequence could clear the screen, recolour or hide what follows, or print a link) become U+FFFD,
 * and whitespace runs, newlines included (which would start a row of the text's own), one space.
 */
export function terminalText(text: string): string {
  return text.replace(CONTROL, '\uFFFD').replace(/\s+/g, ' ');
}
