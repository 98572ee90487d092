import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import GithubSlugger from 'github-slugger';
import type { Nodes, Root } from 'mdast';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { toString } from 'mdast-util-to-string';

export const ROOT = new URL('../../', import.meta.url).pathname;

/** A Markdown page of the docs, parsed. */
export interface DocPage {
  /** Relative to the repository root, e.g. `docs/ci.md`. */
  file: string;
  text: string;
  tree: Root;
}

/** README.md, every page in docs/ and bench/HISTORY.md. */
export function docPages(): DocPage[] {
  const files = [
    'README.md',
    'bench/HISTORY.md',
    ...readdirSync(join(ROOT, 'docs'))
      .filter(f => f.endsWith('.md'))
      .map(f => `docs/${f}`),
  ];
  return files.map(file => {
    const text = readFileSync(join(ROOT, file), 'utf8');
    return { file, text, tree: fromMarkdown(text) };
  });
}

/** Every node of a tree, depth first, with the node that follows it among its siblings. */
export function* walk(node: Nodes): Generator<{ node: Nodes; next: Nodes | undefined }> {
  if (!('children' in node)) return;
  const children = node.children as Nodes[];
  for (let i = 0; i < children.length; i++) {
    yield { node: children[i]!, next: children[i + 1] };
    yield* walk(children[i]!);
  }
}

/** The anchors GitHub gives a page's headings. */
export function anchorsOf(page: DocPage): Set<string> {
  const slugger = new GithubSlugger();
  const anchors = new Set<string>();
  for (const { node } of walk(page.tree))
    if (node.type === 'heading') anchors.add(slugger.slug(toString(node)));
  return anchors;
}

/**
 * Code blocks marked by the HTML comment right before them (`<!-- runnable: exit 0 -->`,
 * `<!-- suite -->`), with the comment's text and where they are.
 */
export function markedBlocks(
  page: DocPage,
  marker: RegExp,
): Array<{ match: RegExpExecArray; code: string; lang: string | null; where: string }> {
  const blocks = [];
  for (const { node, next } of walk(page.tree)) {
    if (node.type !== 'html') continue;
    const match = marker.exec(node.value);
    if (!match) continue;
    if (next?.type !== 'code')
      throw new Error(`${page.file}:${node.position?.start.line}: marker without a code block`);
    blocks.push({
      match,
      code: next.value,
      lang: next.lang ?? null,
      where: `${page.file}:${next.position?.start.line}`,
    });
  }
  return blocks;
}

/** A path relative to the repository root. */
export const fromRoot = (path: string): string => relative(ROOT, path);
