/**
 * Text from traces and suites for a Markdown table cell: every ASCII punctuation character that
 * CommonMark or GitHub's Markdown give a meaning inline (emphasis, code, links, HTML, entities,
 * strikethrough, table pipes) backslash-escaped, as CommonMark allows for any of them; control
 * characters dropped; whitespace (newlines included, which would end the row) collapsed to single
 * spaces. GitHub also links what it finds in the rendered text, escaped or not: URLs (`https://…`,
 * `www.…`) and e-mail addresses (GFM's autolink literals), `@user` and `@org/team` (a mention
 * notifies them), `#123` (an issue or pull request). A word joiner (U+2060, zero-width) breaks
 * each: after `www`, inside `://`, after every `@` (an address's domain may start with `-` or
 * `.`: `a@-evil.example` is linked) and after a `#` that a letter or digit follows. The text reads
 * the same; a copy of it holds the joiners.
 */
export function escapeMarkdown(text: string): string {
  return (
    text
      // eslint-disable-next-line no-control-regex
      .replace(/[\u0000-\u0008\u000B-\u001F\u007F]/g, '')
      .replace(/[\\`*_[\]<>|#&~]/g, c => `\\${c}`)
      .replace(/\s+/g, ' ')
      .replace(/(www)(\.)|(:)(\/\/)|(@|#(?=[\p{L}\p{N}]))/giu, (_m, w, dot, colon, slashes, at) =>
        at ? `${at}${JOINER}` : w ? `${w}${JOINER}${dot}` : `${colon}${JOINER}${slashes}`,
      )
  );
}

/** U+2060 WORD JOINER: no width, no break, no meaning to Markdown. */
const JOINER = '\u2060';
