import type { TrialAggregate } from '../decide/aggregate-trials.js';
import type { ComparisonReport } from '../decide/compare-summaries.js';
import { formatComparisonMarkdown } from './format-comparison.js';
import { hasTrials, passRateText } from './format-table.js';
import { escapeMarkdown } from './escape-markdown.js';
import type { ResultRow, OutcomeCounts } from './result-row.js';

/**
 * `score --format markdown`: for a CI step summary or a pull-request comment. The counts, the
 * comparison with the baseline when there is one, the repeated runs when a case ran more than
 * once, and every result that did not pass with its reason and trace id.
 */
export function formatMarkdown(
  rows: readonly ResultRow[],
  ctx: {
    suiteName: string;
    summary: OutcomeCounts;
    trials: readonly TrialAggregate[];
    comparison?: ComparisonReport;
  },
): string {
  const s = ctx.summary;
  const lines: string[] = [];
  if (ctx.comparison) lines.push(formatComparisonMarkdown(ctx.comparison));
  lines.push(
    `### spanscore results: ${escapeMarkdown(ctx.suiteName)}`,
    '',
    `${s.results} results: ${s.pass} passed, ${s.fail} failed, ${s.skipped} skipped, ${s.failed} scorer ${s.failed === 1 ? 'error' : 'errors'}, ${s.missing} missing.`,
    '',
  );
  if (hasTrials(ctx.trials)) {
    lines.push(
      '| test case | scorer | pass rate | 95% interval | pass^k | stability | required |',
      '| --- | --- | --- | --- | --- | --- | --- |',
      ...ctx.trials.map(
        t =>
          `| ${escapeMarkdown(t.testCaseId)} | ${escapeMarkdown(t.scorer)} | ${passRateText(t)} | ${t.interval[0].toFixed(2)}–${t.interval[1].toFixed(2)} | ${t.passHatK === null ? '–' : t.passHatK.toFixed(2)} (k=${t.k}) | ${t.stability.replace('_', ' ')} | ${t.required ? t.required.outcome.replaceAll('_', ' ') : '–'} |`,
      ),
      '',
    );
  }
  const notPassed = rows.filter(
    r => r.label === 'fail' || r.status === 'failed' || r.status === 'missing',
  );
  if (notPassed.length) {
    lines.push(
      `<details><summary>Results that did not pass (${notPassed.length})</summary>`,
      '',
      '| test case | scorer | result | reason | trace |',
      '| --- | --- | --- | --- | --- |',
      ...notPassed.map(
        r =>
          `| ${escapeMarkdown(r.testCaseId)} | ${escapeMarkdown(r.scorer)} | ${r.status === 'scored' ? 'fail' : r.status} | ${escapeMarkdown(r.reason)} | ${r.traceId ? `\`${r.traceId}\`` : '–'} |`,
      ),
      '',
      '</details>',
      '',
    );
  }
  return lines.join('\n');
}
