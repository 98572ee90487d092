import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { SPANSCORE_VERSION } from '../src/version.js';

it('SPANSCORE_VERSION is the version in package.json', () => {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  expect(SPANSCORE_VERSION).toBe(pkg.version);
});
