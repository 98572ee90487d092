import type { Suite } from '../score/scoring-plan.js';
import { expectedToolsOf } from '../score/expected-tools.js';
import type { ResultRow, RunSummary } from './result-row.js';
import { toolDiff, type ToolDiffStep } from './tool-diff.js';

/** What the HTML report shows besides its rows. */
export interface HtmlReportContext {
  suite: Suite;
  summary: RunSummary;
  /** Traces that matched no test case of the suite. */
  unmatched: number;
  /** When the report was made (shown in its header). */
  generatedAt: Date;
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

function esc(text: string): string {
  return text.replace(/[&<>"']/g, c => `&#${c.charCodeAt(0)};`);
}

const CSS = `
:root{--fg:#1d2433;--muted:#5b6478;--line:#dde1ea;--pass:#17803d;--fail:#b42318;--warn:#b54708;font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;color:var(--fg);background:#f7f8fb}
body{margin:0}header{background:#fff;border-bottom:1px solid var(--line);padding:1rem 1.5rem}h1{font-size:1.3rem;margin:0}
h2{font-size:1.05rem;margin:1.5rem 0 .5rem}main{padding:1rem 1.5rem 2rem;max-width:1400px}.muted{color:var(--muted);font-weight:normal}
.cards{display:flex;flex-wrap:wrap;gap:.75rem;margin:0 0 1rem}.cards div{background:#fff;border:1px solid var(--line);border-radius:6px;padding:.6rem .9rem;min-width:8rem}
.cards dt{color:var(--muted);font-size:.8rem}.cards dd{margin:0;font-size:1.4rem;font-weight:600}
.filter{display:flex;flex-direction:column;font-size:.8rem;color:var(--muted);max-width:30rem}.filter input{font:inherit;padding:.3rem .4rem}
table{border-collapse:collapse;width:100%;background:#fff;border:1px solid var(--line)}th,td{text-align:left;padding:.35rem .6rem;border-bottom:1px solid var(--line);vertical-align:top}
thead th{background:#eef1f6}.num{text-align:right;font-variant-numeric:tabular-nums}.ok{color:var(--pass);font-weight:600}.bad{color:var(--fail);font-weight:600}
.cell.pass{background:#dcfae6;color:var(--pass)}.cell.fail,.cell.failed,.cell.missing{background:#fee4e2;color:var(--fail)}.cell.skipped{background:#fef0c7;color:var(--warn)}
.badge{border-radius:999px;padding:0 .5rem;font-size:.8rem;font-weight:600;background:#fee4e2;color:var(--fail)}
.diff span{font-family:ui-monospace,monospace;font-size:.85rem;padding:0 .3rem;border-radius:3px}.diff .same{background:#eef1f6}
.diff .missing{background:#fee4e2;color:var(--fail);text-decoration:line-through}.diff .extra{background:#fef0c7;color:var(--warn)}
.mono{font-family:ui-monospace,monospace;font-size:.85rem}tr[hidden]{display:none}
`;

const SCRIPT = `
document.getElementById('filter').addEventListener('input', function (e) {
  var q = e.target.value.trim().toLowerCase();
  document.querySelectorAll('tr[data-filter]').forEach(function (row) {
    row.hidden = q !== '' && row.getAttribute('data-filter').toLowerCase().indexOf(q) === -1;
  });
});
`;
