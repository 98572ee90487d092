/**
 * Text from traces and suites for a Markdown table cell: every ASCII punctuation character that
 * CommonMark or GitHub's Markdown give a meaning inline (emphasis, code, links, HTML, entities,
 * strikethrough, table pipes) backslash-escaped, as CommonMark allows for any of them; control
 * characters dropped; whitespace (newlines included, which would end the row) collapsed to single
 * spaces.
 */
export function escapeMarkdown(text: string): string {
  return (
    text
      // eslint-disable-next-line no-control-regex
      .replace(/[\u0000-\u0008\u000B-\u001F\u007F]/g, '')
      .replace(/[\\`*_[\]<>|#&~]/g, c => `\\${c}`)
      .replace(/\s+/g, ' ')
  );
}
