import { existsSync, readFileSync } from 'node:fs';
import type { ResultRow } from '../../src/report/result-row.js';

/** The rows of a results JSONL file (`--results`), or none while it does not exist. */
export function resultRows(file: string): ResultRow[] {
  return existsSync(file)
    ? readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .filter(Boolean)
        .map(l => JSON.parse(l) as ResultRow)
    : [];
}
