import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const CHILD = fileURLToPath(new URL('./kept-names-retain.child.ts', import.meta.url));

/** The strings each cache's 50 names were trimmed from: 1 MiB of spaces each. */
const BODY_BYTES = 1 << 20;

/**
 * What the process-wide caches of encoded names (`JsonTextWriter.name`'s, `EncodedStrings`')
 * hold, counted in heap bytes after a full garbage collection in a process of its own. A name
 * trimmed or sliced from a large string is a view of it in V8 (13 characters or more): keyed on
 * the caller's string, 50 names of 16 characters kept 50 MiB (52.5 MB each cache), up to 512 ×
 * the body's size for the process's life. Keyed on a copy, the names take a few KiB; the last
 * body may stay reachable from V8's own last-match state, so up to 3 bodies are allowed.
 */
describe('kept names: a name trimmed from a large string keeps none of it', () => {
  it('keeps 50 such names in each cache with at most 3 MiB more heap', () => {
    const out = execFileSync(process.execPath, ['--expose-gc', '--import', 'tsx', CHILD], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    const { namesKept, namesBytes, stringsKept, stringsBytes } = JSON.parse(out) as {
      namesKept: number;
      namesBytes: number;
      stringsKept: number;
      stringsBytes: number;
    };
    expect(namesKept).toBe(50);
    expect(stringsKept).toBe(50);
    expect(namesBytes).toBeLessThan(3 * BODY_BYTES);
    expect(stringsBytes).toBeLessThan(3 * BODY_BYTES);
  });
});
