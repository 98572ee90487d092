import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OTHER_VARIABLES } from '../../scripts/config-reference.js';
import { generatedFiles } from '../../scripts/generated-files.js';
import { CONFIG_ENV, UNPREFIXED_VARIABLES } from '../../src/config/load-config.js';

const root = new URL('../../', import.meta.url).pathname;

/** Every `.ts` file under `dir` that is not a test. */
async function sources(dir: string): Promise<string[]> {
  const entries = await readdir(join(root, dir), { recursive: true, withFileTypes: true });
  return entries
    .filter(e => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.test.ts'))
    .map(e => join(e.parentPath, e.name));
}

describe('generated docs and schemas', () => {
  it('match what `npm run docs:config` writes from the schemas', async () => {
    const files = await generatedFiles();
    expect(Object.keys(files).sort()).toEqual([
      'docs/configuration.md',
      'schema/config.schema.json',
      'schema/suite.schema.json',
    ]);
    for (const [file, text] of Object.entries(files)) {
      const committed = await readFile(join(root, file), 'utf8');
      expect(committed, `${file} is stale: run npm run docs:config`).toBe(text);
    }
  });

  it('give every config field a meaning, and every variable a field that exists', async () => {
    const page = (await generatedFiles())['docs/configuration.md']!;
    const rows = page.split('\n').filter(l => /^\| `[a-zA-Z.$]+` \|/.test(l));
    expect(rows.length).toBeGreaterThan(50);
    for (const row of rows) {
      const cells = row.split(/(?<!\\)\|/).map(c => c.trim());
      // | setting | variable | type | default | meaning |, or | variable | meaning |
      expect(cells.at(-2), `no meaning: ${row}`).not.toBe('');
    }
    for (const [name, path] of Object.entries(CONFIG_ENV)) {
      expect(page, `${name} goes to ${path.join('.')}, which has no row`).toContain(
        `| \`${path.join('.')}\` | \`${name}\``,
      );
    }
  });

  it('list every environment variable the code reads', async () => {
    const page = await readFile(join(root, 'docs/configuration.md'), 'utf8');
    const read = new Set<string>([
      ...Object.keys(CONFIG_ENV),
      ...Object.values(UNPREFIXED_VARIABLES).filter(v => v !== undefined),
    ]);
    // `env.NAME`, `env['NAME']`, `env?.NAME` in any source file (the CLI, the service, the library).
    const pattern = /\benv(?:\?\.|\.|\[\s*['"`])([A-Z][A-Z0-9_]+)/g;
    // And a variable's name kept in a constant (`const BOUNDED = 'SPANSCORE_HEAP_BOUNDED_MB'`).
    const named = /['"`](SPANSCORE_[A-Z0-9_]+)['"`]/g;
    for (const file of await sources('src')) {
      const text = await readFile(file, 'utf8');
      for (const match of text.matchAll(pattern)) read.add(match[1]!);
      if (!file.endsWith('.test.ts')) for (const match of text.matchAll(named)) read.add(match[1]!);
    }
    // The scan finds what it should: variables read in four different places.
    expect(read).toContain('SPANSCORE_HEAP_BOUNDED_MB');
    expect(read).toContain('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
    expect(read).toContain('NO_COLOR');
    expect(read).toContain('REDIS_URL');
    const missing = [...read].filter(name => !page.includes(`\`${name}\``));
    expect(missing, 'variables the code reads that docs/configuration.md does not list').toEqual(
      [],
    );
    // And the page lists no variable nothing reads (these the OpenTelemetry exporters, the openai
    // client and Node itself read).
    const readByClients = [
      'OTEL_EXPORTER_OTLP_HEADERS',
      'OTEL_EXPORTER_OTLP_LOGS_ENDPOINT',
      'OPENAI_BASE_URL',
      'NODE_DISABLE_COMPILE_CACHE',
    ];
    const listedOther = Object.keys(OTHER_VARIABLES).filter(
      name => !read.has(name) && !readByClients.includes(name),
    );
    expect(listedOther).toEqual([]);
  });
});
