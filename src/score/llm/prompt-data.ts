/**
 * Puts data under judgement (a user request, tool outputs, an answer) in its own `<tag>` block, so
 * the judge can tell data from instructions. Data cannot close a block early: any closing tag of
 * the prompt's own `tags` inside it becomes `<\/tag>`.
 */
export function dataBlock(tag: string, text: string, tags: readonly string[]): string {
  const closing = new RegExp(`</(${tags.join('|')})>`, 'gi');
  return `<${tag}>\n${text.replace(closing, '<\\/$1>')}\n</${tag}>`;
}
