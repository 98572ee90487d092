import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../src/errors/error-codes.js';

const page = readFileSync(new URL('../docs/errors.md', import.meta.url), 'utf8');
const documented = [...page.matchAll(/^\| `(SS_[A-Z_]+)` \| (.+) \|$/gm)].map(m => [m[1]!, m[2]!]);

describe('the error catalogue', () => {
  it('documents every code in docs/errors.md, with its summary, and nothing else', () => {
    expect(Object.fromEntries(documented)).toEqual(
      Object.fromEntries(Object.entries(ERROR_CODES).map(([code, { summary }]) => [code, summary])),
    );
  });
});
