/**
 * Text from traces and suites for a Markdown table cell: markup characters and pipes escaped,
 * whitespace (newlines included, which would end the row) collapsed to single spaces.
 */
export function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_[\]<>|#]/g, c => `\\${c}`).replace(/\s+/g, ' ');
}
