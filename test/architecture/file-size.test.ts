import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
/** The most lines a file in src/ may have: past it, a file holds more than one job. */
const MAX_LINES = 450;

function* sourceFiles(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sourceFiles(path);
    else if (/\.(ts|js)$/.test(entry.name)) yield path;
  }
}

describe('the size of source files', () => {
  it(`keeps every file in src/ (tests beside the code included) at ${MAX_LINES} lines or fewer`, () => {
    const files = [...sourceFiles(join(root, 'src'))];
    expect(files.length).toBeGreaterThan(100);
    const over = files
      .map(
        file => [relative(root, file), readFileSync(file, 'utf8').split('\n').length - 1] as const,
      )
      .filter(([, lines]) => lines > MAX_LINES)
      .map(([file, lines]) => `${file}: ${lines} lines`);
    expect(over).toEqual([]);
  });
});
