/**
 * Puts data under judgement (a user request, tool outputs, an answer) in its own `<tag>` block, so
 * the judge can tell data from instructions. Data cannot close a block early nor open one: every
 * `<` that starts a tag of the prompt's own `tags`, opening or closing, in any case, with spaces,
 * line breaks or invisible format characters (U+200B, U+FEFF, …) around its `/` (`</tag >`,
 * `< /TAG>`, `<tag>`), gets a backslash after it (`<\/tag>`, `<\tag>`), so no tag of the prompt's
 * appears inside a block.
 */
export function dataBlock(tag: string, text: string, tags: readonly string[]): string {
  return `<${tag}>\n${neutralizeTags(text, tags)}\n</${tag}>`;
}

/**
 * `text` as {@link dataBlock} puts it in a block: a backslash after each `<` that starts one of
 * `tags`. A second pass changes nothing (`<\` starts no tag), so text neutralized to be measured
 * (`PromptCuts.lines`) is what the block holds, character for character.
 */
export function neutralizeTags(text: string, tags: readonly string[]): string {
  // One run of spaces before the optional `/`, one after it: two runs side by side
  // (`[\s]*\/?[\s]*`) backtracked in the square of a run without a tag after it (a 100,000-character
  // block of `<` and 1,999 spaces took about 0.5 s to neutralize; now about 0.5 ms).
  const tagStart = new RegExp(
    `<(?=[\\s\\p{Cf}]*(?:\\/[\\s\\p{Cf}]*)?(?:${tags.join('|')})(?![\\w-]))`,
    'giu',
  );
  return text.replace(tagStart, '<\\');
}
