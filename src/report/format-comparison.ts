import picocolors from 'picocolors';
import type {
  ComparedSide,
  Comparison,
  ComparisonReport,
  Verdict,
} from '../decide/compare-summaries.js';
import { esc, REPORT_CSS } from './html-parts.js';
import { escapeMarkdown } from './escape-markdown.js';
import { textTable } from './text-table.js';

/** `compare --format`. */
export const COMPARISON_FORMATS = ['table', 'json', 'markdown', 'html'] as const;
export type ComparisonFormat = (typeof COMPARISON_FORMATS)[number];

const ORDER: Verdict[] = ['regressed', 'not_comparable', 'improved', 'new', 'removed', 'unchanged'];

/** `rate (passes/runs)`, e.g. `80% (8/10)`; `–` with no runs. */
function rate(side: ComparedSide | null): string {
  if (!side) return '–';
  if (side.passRate === null) return `– (0/0)`;
  return `${Math.round(side.passRate * 100)}% (${side.passes}/${side.runs})`;
}

function delta(c: Comparison): string {
  const a = c.baseline?.passRate;
  const b = c.current?.passRate;
  if (a == null || b == null) return '';
  const points = Math.round((b - a) * 100);
  return points === 0 ? '±0' : points > 0 ? `+${points}` : `${points}`;
}

function verdictText(c: Comparison): string {
  return c.flip ? `${c.verdict} (flip)` : c.verdict.replace('_', ' ');
}

const p = (c: Comparison): string => (c.pValue === null ? '' : c.pValue.toPrecision(2));

/** The line of counts, e.g. `1 regressed, 0 improved, 10 unchanged (2 flips), …`. */
export function comparisonSummaryLine(report: ComparisonReport): string {
  const s = report.summary;
  return `${s.total} compared: ${s.regressed} regressed, ${s.improved} improved, ${s.unchanged} unchanged (${s.flips} flip${s.flips === 1 ? '' : 's'}), ${s.new} new, ${s.removed} removed, ${s.not_comparable} not comparable`;
}

/**
 * The verdict that decides the exit code, in words, under the `--fail-on` given, e.g.
 * `failed --fail-on regression: 2 regressed` or
 * `passed --fail-on any-regression: no pass rate fell`. Without `--fail-on` it says what moved
 * and that it does not fail the run.
 */
export function comparisonVerdictLine(report: ComparisonReport): string {
  const { failOn, outcome, failing } = report.decision;
  const count = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
  const what =
    failOn === 'any-regression'
      ? failing.length
        ? `${count(failing.length, 'pass rate', 'pass rates')} fell (${failing.filter(f => f.verdict === 'regressed').length} regressed, ${count(failing.filter(f => f.flip).length, 'flip')})`
        : 'no pass rate fell'
      : failing.length
        ? `${failing.length} regressed`
        : report.summary.flips
          ? `no significant regression (${count(report.summary.flips, 'flip')}, not significant)`
          : 'no regression';
  if (outcome === 'informational') return `${what}; no --fail-on, so this does not fail the run`;
  return `${outcome} --fail-on ${failOn}: ${what}`;
}

/** The mark before the verdict: ❌ failed, ✅ passed, ℹ️ informational. */
function verdictMark(report: ComparisonReport): string {
  return { failed: '❌', passed: '✅', informational: 'ℹ️' }[report.decision.outcome];
}

/** `test case × scorer` of each row that failed the verdict, for the formats that list them. */
function failingNames(report: ComparisonReport): string[] {
  return report.decision.outcome === 'failed'
    ? report.decision.failing.map(f => `${f.testCaseId} × ${f.scorer}`)
    : [];
}

/** Comparisons most in need of a look first: regressions, then changed scorers, …, unchanged. */
function sorted(report: ComparisonReport): Comparison[] {
  return [...report.comparisons].sort(
    (a, b) =>
      ORDER.indexOf(a.verdict) - ORDER.indexOf(b.verdict) ||
      Number(b.flip) - Number(a.flip) ||
      (a.pValue ?? 1) - (b.pValue ?? 1),
  );
}

/** Past this many rows, the table leaves out rows with nothing to see (unchanged, no flip). */
const TABLE_ALL_ROWS_UP_TO = 100;

/**
 * `table`: one row per test case × scorer, regressions first, then the counts. Past 100 rows it
 * leaves out the unchanged ones that did not move, and says how many (`--format json` has all).
 */
export function formatComparisonTable(report: ComparisonReport, color = false): string {
  const pc = picocolors.createColors(color);
  const paint = (c: Comparison, text: string): string =>
    c.verdict === 'regressed'
      ? pc.red(text)
      : c.verdict === 'improved'
        ? pc.green(text)
        : c.flip || c.verdict === 'not_comparable'
          ? pc.yellow(text)
          : pc.dim(text);
  const all = sorted(report);
  const shown =
    all.length <= TABLE_ALL_ROWS_UP_TO ? all : all.filter(c => c.verdict !== 'unchanged' || c.flip);
  const table = textTable(
    ['Test case', 'Scorer', 'Baseline', 'Current', 'Δ pts', 'p', 'Verdict'],
    shown.map(c => [
      c.testCaseId,
      c.scorer,
      rate(c.baseline),
      rate(c.current),
      delta(c),
      p(c),
      verdictText(c),
    ]),
    (text, row, column) => (column === 6 ? paint(shown[row]!, text) : text),
  );
  const left = all.length - shown.length;
  const note = left
    ? `${left} unchanged row(s) that did not move are not shown (--format json lists every row)\n`
    : '';
  const failed = failingNames(report);
  const verdict = `${report.decision.outcome === 'failed' ? pc.red(comparisonVerdictLine(report)) : comparisonVerdictLine(report)}${failed.length ? `:\n${failed.map(f => `  ${f}`).join('\n')}` : ''}`;
  return `${shown.length ? table : '(nothing to compare)'}\n${note}${comparisonSummaryLine(report)}\n${verdict}\n`;
}

/** `json`: `{ baseline, current, alpha, comparisons, summary, decision }`. */
export function formatComparisonJson(report: ComparisonReport): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}

/**
 * `markdown`: for a CI step summary or a pull-request comment. The counts, then sections for
 * regressions, changed scorers, improvements, flips and flaky cases (each with failing trace ids),
 * then every other row folded away.
 */
export function formatComparisonMarkdown(report: ComparisonReport): string {
  const lines = [
    `### spanscore: ${verdictMark(report)} ${escapeMarkdown(comparisonVerdictLine(report))}`,
    '',
    ...failingNames(report).map(f => `- ${escapeMarkdown(f)}`),
    ...(failingNames(report).length ? [''] : []),
    `${comparisonSummaryLine(report)}. Baseline ${escapeMarkdown(labelText(report.baseline))}, current ${escapeMarkdown(labelText(report.current))}; significant when p < ${report.alpha} (one-sided Fisher's exact test).`,
    '',
  ];
  const table = (rows: Comparison[]): string[] => [
    '| test case | scorer | baseline | current | Δ pts | p | failing traces |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...rows.map(
      c =>
        `| ${escapeMarkdown(c.testCaseId)} | ${escapeMarkdown(c.scorer)} | ${rate(c.baseline)} | ${rate(c.current)} | ${delta(c)} | ${p(c)} | ${(c.current?.failingTraceIds ?? []).map(id => `\`${escapeMarkdown(id)}\``).join(' ')} |`,
    ),
    '',
  ];
  const section = (title: string, rows: Comparison[]): void => {
    if (rows.length) lines.push(`#### ${title} (${rows.length})`, '', ...table(rows));
  };
  const all = sorted(report);
  section(
    'Regressed',
    all.filter(c => c.verdict === 'regressed'),
  );
  section(
    'Not comparable: the scorer configuration changed',
    all.filter(c => c.verdict === 'not_comparable'),
  );
  section(
    'Improved',
    all.filter(c => c.verdict === 'improved'),
  );
  section(
    'Flips: changed, not significantly',
    all.filter(c => c.flip),
  );
  section(
    'Flaky now: some runs pass, some fail',
    all.filter(c => !c.flip && c.verdict === 'unchanged' && c.current?.stability === 'flaky'),
  );
  section(
    'New',
    all.filter(c => c.verdict === 'new'),
  );
  section(
    'Removed',
    all.filter(c => c.verdict === 'removed'),
  );
  const rest = all.filter(
    c => c.verdict === 'unchanged' && !c.flip && c.current?.stability !== 'flaky',
  );
  if (rest.length)
    lines.push(
      `<details><summary>Unchanged (${rest.length})</summary>`,
      '',
      ...table(rest),
      '</details>',
      '',
    );
  return lines.join('\n');
}

/** When a run was made and its labels, e.g. `2026-11-25T… (git.sha=abc, model=m)`. */
function labelText(side: ComparisonReport['baseline']): string {
  const labels = Object.entries(side.labels).map(([k, v]) => `${k}=${v}`);
  return `${side.createdAt}${labels.length ? ` (${labels.join(', ')})` : ''}`;
}

/** The comparison as an HTML section: also part of `score --baseline`'s HTML report. */
export function comparisonSectionHtml(report: ComparisonReport): string {
  const rows = sorted(report).map(c => {
    const cls = c.verdict === 'regressed' ? 'bad' : c.verdict === 'improved' ? 'ok' : '';
    return `<tr data-filter="${esc(`${c.testCaseId} ${c.scorer} ${c.verdict}`)}" data-verdict="${c.verdict}"><th scope="row">${esc(c.testCaseId)}</th><td>${esc(c.scorer)}</td><td class="num">${esc(rate(c.baseline))}</td><td class="num">${esc(rate(c.current))}</td><td class="num">${esc(delta(c))}</td><td class="num">${esc(p(c))}</td><td class="${cls}">${esc(verdictText(c))}</td></tr>`;
  });
  return `<section aria-labelledby="comparison-title">
<h2 id="comparison-title">Against the baseline</h2>
<p id="comparison-verdict" class="${report.decision.outcome === 'failed' ? 'bad' : report.decision.outcome === 'passed' ? 'ok' : ''}" data-outcome="${report.decision.outcome}"><strong>${verdictMark(report)} ${esc(comparisonVerdictLine(report))}</strong></p>
${
  failingNames(report).length
    ? `<ul id="comparison-failing">${failingNames(report)
        .map(f => `<li>${esc(f)}</li>`)
        .join('')}</ul>\n`
    : ''
}<p id="comparison-summary">${esc(comparisonSummaryLine(report))}. Baseline ${esc(labelText(report.baseline))}; significant when p &lt; ${report.alpha}.</p>
<table id="comparison"><thead><tr><th scope="col">Test case</th><th scope="col">Scorer</th><th scope="col" class="num">Baseline</th><th scope="col" class="num">Current</th><th scope="col" class="num">Δ pts</th><th scope="col" class="num">p</th><th scope="col">Verdict</th></tr></thead>
<tbody>${rows.join('\n')}</tbody></table>
</section>`;
}

/** `html`: one self-contained page of the comparison. */
export function formatComparisonHtml(report: ComparisonReport): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>spanscore comparison</title>
<style>${REPORT_CSS}</style>
</head>
<body>
<header><h1>spanscore comparison <span class="muted">${esc(report.current.suite)}</span></h1></header>
<main>
${comparisonSectionHtml(report)}
</main>
</body>
</html>
`;
}
