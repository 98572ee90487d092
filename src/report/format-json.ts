import type { TrialAggregate } from '../decide/aggregate-trials.js';
import type { ComparisonReport } from '../decide/compare-summaries.js';
import type { ResultRow } from './result-row.js';

/**
 * `json`: `{ results, trials }` pretty-printed: every result object, and per test case × scorer
 * the aggregates of its runs; with a baseline, `comparison` too.
 */
export function formatJson(
  rows: readonly ResultRow[],
  trials: readonly TrialAggregate[],
  comparison?: ComparisonReport,
): string {
  return `${JSON.stringify({ results: rows, trials, ...(comparison && { comparison }) }, null, 2)}\n`;
}

/** `jsonl`: one result object per line. */
export function formatJsonl(rows: readonly ResultRow[]): string {
  return rows.map(row => JSON.stringify(row)).join('\n') + (rows.length ? '\n' : '');
}
