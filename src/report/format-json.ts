import type { ResultRow } from './result-row.js';

/** `json`: one array of result objects, pretty-printed. */
export function formatJson(rows: readonly ResultRow[]): string {
  return `${JSON.stringify(rows, null, 2)}\n`;
}

/** `jsonl`: one result object per line. */
export function formatJsonl(rows: readonly ResultRow[]): string {
  return rows.map(row => JSON.stringify(row)).join('\n') + (rows.length ? '\n' : '');
}
