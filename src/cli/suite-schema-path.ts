import { existsSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const IN_PACKAGE = join('node_modules', 'spanscore', 'schema', 'suite.schema.json');

/** This spanscore's own suite schema: `schema/` beside `dist/` (or `src/`) in the package. */
const OWN_SCHEMA = fileURLToPath(new URL('../../schema/suite.schema.json', import.meta.url));

/**
 * The `$schema` a suite written to `file` declares, as a path relative to that file that resolves
 * where it is written: the `spanscore` installed in the nearest `node_modules` above it (what a
 * project that installed spanscore commits, e.g. `../node_modules/spanscore/schema/…` for
 * `evals/suite.yaml`), else the schema of the spanscore that runs (a checkout). On stdout (no
 * file) it is the path from the working directory. Always `/`-separated, as editors expect.
 */
export function suiteSchemaPath(file: string | undefined, cwd = process.cwd()): string {
  const from = file ? dirname(resolve(cwd, file)) : resolve(cwd);
  let schema = OWN_SCHEMA;
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, IN_PACKAGE))) {
      schema = join(dir, IN_PACKAGE);
      break;
    }
    if (dirname(dir) === dir) break;
  }
  return relative(from, schema).split(sep).join('/');
}
