import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { isUnreadKey, UNREAD_ATTRIBUTE_FAMILIES } from '../../src/ingest/unread-attributes.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** The sources of every reader of span attributes `readAttributes` serves, and their constants. */
const READERS = ['src/normalize', 'src/score', 'src/suite', 'src/semconv', 'src/ingest'];

/**
 * Keys in a family that a reader's source names but no reader reads: spanscore writes them on
 * its own evaluation spans (`score-to-span`), from the constants of src/semconv.
 */
const WRITTEN_ONLY = new Map([
  ['gen_ai.usage.input_tokens', 'A.inputTokens'],
  ['gen_ai.usage.output_tokens', 'A.outputTokens'],
]);

function sources(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true, recursive: true })
    .filter(e => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.test.ts'))
    .map(e => join(e.parentPath, e.name));
}

/** Each string literal's text in a file (a template's up to its first substitution). */
function literals(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
  const out: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteralLike(node) || ts.isTemplateHead(node)) out.push(node.text);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

describe('unread attribute families: no reader of spanscore reads a key in one', () => {
  it('no string in the readers’ sources is a key in a family, or a family to build keys from', () => {
    const found: string[] = [];
    for (const dir of READERS)
      for (const file of sources(dir)) {
        if (file.endsWith('unread-attributes.ts')) continue; // the list itself
        for (const s of literals(file))
          if ((isUnreadKey(s) || UNREAD_ATTRIBUTE_FAMILIES.includes(s)) && !WRITTEN_ONLY.has(s))
            found.push(`${relative(root, file)}: ${s}`);
      }
    expect(found).toEqual([]);
  });

  it('the keys only written are read nowhere: their constants are used in src/emit only', () => {
    // They are EVALUATION_ATTRIBUTES' (what evaluation spans carry); only src/emit and the public
    // index (which re-exports it) may name that object, and no other source names the keys.
    const users = ['src']
      .flatMap(sources)
      .filter(f => !f.includes('/src/emit/') && !f.includes('/src/semconv/'))
      .filter(f => !f.endsWith('/src/index.ts'))
      .filter(f => {
        const text = readFileSync(f, 'utf8');
        return (
          text.includes('EVALUATION_ATTRIBUTES') ||
          [...WRITTEN_ONLY.keys()].some(k => text.includes(k))
        );
      });
    expect(users.map(f => relative(root, f))).toEqual([]);
    const semconv = readFileSync(join(root, 'src/semconv/attributes.ts'), 'utf8');
    const evaluation = semconv.slice(semconv.indexOf('export const EVALUATION_ATTRIBUTES'));
    for (const [key, constant] of WRITTEN_ONLY)
      expect(evaluation).toContain(`${constant.split('.')[1]}: '${key}'`);
  });

  it('finds what it looks for: a key in a family, in any quotes, and a template’s start', () => {
    const file = join(root, 'test/architecture/unread-attributes.test.ts');
    const here = literals(file);
    expect(here).toContain('gen_ai.usage.input_tokens');
    expect(here).toContain('gen_ai.usage.'); // the template below, up to its substitution
    expect(`gen_ai.usage.${file.length}`).toMatch(/^gen_ai/);
    expect(isUnreadKey('http.request.method')).toBe(true);
    expect(isUnreadKey('http.')).toBe(false); // a family's prefix alone is no key in it
    expect(isUnreadKey('gen_ai.tool.name')).toBe(false);
    expect(UNREAD_ATTRIBUTE_FAMILIES.every(f => f.endsWith('.'))).toBe(true);
  });
});
