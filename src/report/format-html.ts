import type { TrialAggregate } from '../decide/aggregate-trials.js';
import type { ComparisonReport } from '../decide/compare-summaries.js';
import type { Suite } from '../score/scoring-plan.js';
import { comparisonSectionHtml } from './format-comparison.js';
import { hasTrials, passRateText } from './format-table.js';
import { expectedToolsOf } from '../score/expected-tools.js';
import type { ResultRow, OutcomeCounts } from './result-row.js';
import { esc, REPORT_CSS as CSS } from './html-parts.js';
import { toolDiff, type ToolDiffStep } from './tool-diff.js';

/** What the HTML report shows besides its rows. */
export interface HtmlReportContext {
  suite: Suite;
  summary: OutcomeCounts;
  /** Traces that matched no test case of the suite. */
  unmatched: number;
  /** When the report was made (shown in its header). */
  generatedAt: Date;
  /** Per test case × scorer, the aggregates of its runs (shown when a case ran more than once). */
  trials?: readonly TrialAggregate[];
  /** The comparison with a baseline (`score --baseline`), shown side by side with deltas. */
  comparison?: ComparisonReport;
}

/**
 * `spanscore score --format html`: one self-contained HTML file (inline CSS and script, nothing
 * loaded from the network) for a CI artifact. It shows the pass rate per scorer in %, a test case ×
 * scorer matrix, every failure with its reason, trace id and expected-vs-actual tool diff, and a
 * filter box. Every value from traces or the suite is HTML-escaped.
 */
export function formatHtml(rows: readonly ResultRow[], ctx: HtmlReportContext): string {
  const scorers = [...new Set(rows.map(r => r.scorer))].sort();
  const cases = ctx.suite.cases.map(c => c.testCase.id);
  for (const r of rows) if (!cases.includes(r.testCaseId)) cases.push(r.testCaseId);
  const s = ctx.summary;
  const labelled = s.pass + s.fail;

  const perScorer = scorers.map(scorer => {
    const mine = rows.filter(r => r.scorer === scorer);
    const pass = mine.filter(r => r.label === 'pass').length;
    const fail = mine.filter(r => r.label === 'fail').length;
    const other = mine.length - pass - fail;
    return `<tr><th scope="row">${esc(scorer)}</th><td class="num">${mine.length}</td><td class="num">${pass}</td><td class="num">${fail}</td><td class="num">${other}</td><td class="num ${rateClass(pass, fail)}">${pct(pass, fail)}</td></tr>`;
  });

  const matrix = cases.map(id => {
    const cells = scorers.map(scorer => {
      const mine = rows.filter(r => r.testCaseId === id && r.scorer === scorer);
      if (mine.length === 0) return '<td class="cell none">–</td>';
      const pass = mine.filter(r => r.label === 'pass').length;
      const worst = mine.find(r => r.status === 'missing')
        ? 'missing'
        : mine.find(r => r.status === 'failed')
          ? 'failed'
          : mine.find(r => r.label === 'fail')
            ? 'fail'
            : mine.every(r => r.status === 'skipped')
              ? 'skipped'
              : 'pass';
      const scores = mine.filter(r => r.score !== null).map(r => r.score!.toFixed(2));
      const text =
        mine.length > 1
          ? `${worst} (${pass}/${mine.length} pass)`
          : `${worst}${scores.length ? ` ${scores[0]}` : ''}`;
      const title = mine.map(r => r.reason).join('\n');
      return `<td class="cell ${worst}" title="${esc(title)}">${esc(text)}</td>`;
    });
    return `<tr data-filter="${esc(id)}"><th scope="row">${esc(id)}</th>${cells.join('')}</tr>`;
  });

  const failures = rows
    .filter(r => r.label === 'fail' || r.status === 'failed' || r.status === 'missing')
    .map(r => {
      const expected = expectedToolsOf(ctx.suite.byId.get(r.testCaseId)?.testCase);
      const actual = r.toolSequence.map(c => c.name);
      const diff = expected
        ? diffHtml(toolDiff(expected, actual))
        : '<span class="muted">no expected tools</span>';
      return `<tr data-filter="${esc([r.testCaseId, r.scorer, r.traceId ?? '', r.reason].join(' '))}"><th scope="row">${esc(r.testCaseId)}</th><td>${esc(r.scorer)}</td><td><span class="badge ${r.status === 'scored' ? 'fail' : r.status}">${esc(r.status === 'scored' ? 'fail' : r.status)}</span>${r.score !== null ? ` ${r.score.toFixed(2)}` : ''}</td><td>${esc(r.reason)}</td><td>${diff}</td><td class="mono">${esc(r.traceId ?? '–')}</td></tr>`;
    });

  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>spanscore report: ${esc(ctx.suite.name)}</title>
<style>${CSS}</style>
</head>
<body>
<header>
<h1>spanscore report <span class="muted">${esc(ctx.suite.name)}</span></h1>
<p class="muted">${esc(ctx.generatedAt.toISOString())} · suite ${esc(ctx.suite.file)}</p>
</header>
<main>
<dl class="cards">
<div><dt>Results</dt><dd id="total-results">${s.results}</dd></div>
<div><dt>Pass rate</dt><dd id="total-pass-rate">${labelled ? pct(s.pass, s.fail) : '–'}</dd></div>
<div><dt>Pass</dt><dd>${s.pass}</dd></div>
<div><dt>Fail</dt><dd>${s.fail}</dd></div>
<div><dt>Scorer errors</dt><dd>${s.failed}</dd></div>
<div><dt>Test cases with no trace</dt><dd>${new Set(rows.filter(r => r.status === 'missing').map(r => r.testCaseId)).size}</dd></div>
<div><dt>Traces of no test case</dt><dd>${ctx.unmatched}</dd></div>
</dl>
<label class="filter">Filter <input id="filter" type="search" placeholder="test case, scorer, trace id, reason"></label>
<section aria-labelledby="scorers-title">
<h2 id="scorers-title">Pass rate per scorer</h2>
<table id="scorers"><thead><tr><th scope="col">Scorer</th><th scope="col" class="num">Results</th><th scope="col" class="num">Pass</th><th scope="col" class="num">Fail</th><th scope="col" class="num">Other</th><th scope="col" class="num">Pass rate</th></tr></thead>
<tbody>${perScorer.join('\n')}</tbody></table>
</section>
<section aria-labelledby="matrix-title">
<h2 id="matrix-title">Test cases × scorers</h2>
<table id="matrix"><thead><tr><th scope="col">Test case</th>${scorers.map(x => `<th scope="col">${esc(x)}</th>`).join('')}</tr></thead>
<tbody>${matrix.join('\n')}</tbody></table>
</section>
${ctx.comparison ? comparisonSectionHtml(ctx.comparison) : ''}
${ctx.trials && hasTrials(ctx.trials) ? trialsHtml(ctx.trials) : ''}
<section aria-labelledby="failures-title">
<h2 id="failures-title">Failures (${failures.length})</h2>
${
  failures.length
    ? `<table id="failures"><thead><tr><th scope="col">Test case</th><th scope="col">Scorer</th><th scope="col">Result</th><th scope="col">Reason</th><th scope="col">Expected vs actual tools</th><th scope="col">Trace id</th></tr></thead>
<tbody>${failures.join('\n')}</tbody></table>`
    : '<p id="failures">No failures.</p>'
}
</section>
</main>
<script>${SCRIPT}</script>
</body>
</html>
`;
}

function trialsHtml(trials: readonly TrialAggregate[]): string {
  const f = (n: number | null): string => (n === null ? '–' : n.toFixed(2));
  const rows = trials.map(t => {
    const req = t.required
      ? `<span class="${t.required.outcome === 'pass' ? 'ok' : 'bad'}">${esc(t.required.outcome.replaceAll('_', ' '))}</span> (≥${t.required.min} runs, ≥${Math.round(t.required.passRate * 100)}%)`
      : '–';
    return `<tr data-filter="${esc(`${t.testCaseId} ${t.scorer} ${t.stability}`)}"><th scope="row">${esc(t.testCaseId)}</th><td>${esc(t.scorer)}</td><td class="num">${esc(passRateText(t))}</td><td class="num">${f(t.interval[0])}–${f(t.interval[1])}</td><td class="num">${t.k}</td><td class="num">${f(t.passAtK)}</td><td class="num">${f(t.passHatK)}</td><td>${esc(t.stability.replace('_', ' '))}</td><td>${req}</td></tr>`;
  });
  return `<section aria-labelledby="trials-title">
<h2 id="trials-title">Repeated runs</h2>
<table id="trials"><thead><tr><th scope="col">Test case</th><th scope="col">Scorer</th><th scope="col" class="num">Pass rate</th><th scope="col" class="num">95% interval</th><th scope="col" class="num">k</th><th scope="col" class="num">pass@k</th><th scope="col" class="num">pass^k</th><th scope="col">Stability</th><th scope="col">Required</th></tr></thead>
<tbody>${rows.join('\n')}</tbody></table>
</section>`;
}

function diffHtml(steps: ToolDiffStep[]): string {
  if (steps.length === 0) return '<span class="muted">none expected, none called</span>';
  return `<span class="diff">${steps
    .map(
      s =>
        `<span class="${s.op}">${s.op === 'missing' ? '−' : s.op === 'extra' ? '+' : ''}${esc(s.name)}</span>`,
    )
    .join(' ')}</span>`;
}

function pct(pass: number, fail: number): string {
  return pass + fail === 0 ? '–' : `${((100 * pass) / (pass + fail)).toFixed(1)}%`;
}

function rateClass(pass: number, fail: number): string {
  return pass + fail === 0 ? '' : pass / (pass + fail) >= 0.9 ? 'ok' : 'bad';
}

const SCRIPT = `
document.getElementById('filter').addEventListener('input', function (e) {
  var q = e.target.value.trim().toLowerCase();
  document.querySelectorAll('tr[data-filter]').forEach(function (row) {
    row.hidden = q !== '' && row.getAttribute('data-filter').toLowerCase().indexOf(q) === -1;
  });
});
`;
