/**
 * `npm run docs:config`: writes what is generated from the config and suite schemas, the
 * configuration reference (`docs/configuration.md`) and the JSON Schemas (`schema/*.json`).
 * Idempotent; `test/docs/generated-docs.test.ts` fails when a committed file differs.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generatedFiles } from './generated-files.js';

const root = fileURLToPath(new URL('..', import.meta.url));
for (const [file, text] of Object.entries(await generatedFiles())) {
  const path = `${root}${file}`;
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, text);
  console.log(`wrote ${file}`);
}
