// The overview: totals, the requests the receiver refused, the pass-rate chart, the tables by
// scorer, test case or rule and agent, the newest failures, and the traces not scored by reason.
import { $, fillTable, h, num, pct, rateClass, sessionCell, time, traceCell, usd } from './dom.js';
import { refusedCount, renderRefused } from './refused.js';
import { diffView } from './trace-view.js';

let chart;
let chartSeries = '';

export function renderOverview(summary, failures, ctx) {
  renderTotals(summary);
  renderRefused(summary.refused ?? []);
  renderExport(summary.export);
  renderChart(summary);
  renderTables(summary);
  renderFailures(failures, ctx);
  renderFirstContact(summary);
}

function renderTotals(summary) {
  const t = summary.total;
  const notScored = summary.notScored.reduce((n, r) => n + r.count, 0);
  const cards = [
    ['Results', t.count],
    ['Pass rate', pct(t.passRate)],
    ['Failing results', t.fail],
    ['Traces not scored', notScored],
    ['Traces failed', summary.failedTraces],
    ['Requests refused', refusedCount(summary)],
    ['Judge cost', usd(t.judgeCostUsd)],
  ];
  $('#totals').replaceChildren(
    ...cards.map(([k, v]) => h('div', {}, h('dt', {}, k), h('dd', {}, v))),
  );
}

/** With no result yet: what to do next, instead of an empty page. */
function renderFirstContact(summary) {
  const hint = $('#first-contact');
  const notScored = summary.notScored.reduce((n, r) => n + r.count, 0);
  const refused = refusedCount(summary);
  if (summary.total.count > 0) return void (hint.hidden = true);
  hint.hidden = false;
  hint.replaceChildren(
    notScored === 0 && refused > 0
      ? h(
          'p',
          {},
          `No trace scored in this window, and ${refused} request(s) to the receiver were refused: “Requests the receiver refused” below says why, and what to fix.`,
        )
      : notScored > 0
        ? h(
            'p',
            {},
            `${notScored} trace(s) arrived in this window and none was scored: `,
            h('a', { href: '#traces' }, 'see why in Traces'),
            '.',
          )
        : h(
            'p',
            {},
            'No traces yet. Point your agent’s OTLP exporter here: ',
            h('code', {}, `OTEL_EXPORTER_OTLP_ENDPOINT=${location.origin}`),
            '. Every trace with tool calls is scored for tool health (failed calls, invalid arguments, tools never offered, loops); a suite adds your own expectations.',
          ),
  );
}

function renderExport(status) {
  const notice = $('#export-notice');
  if (!status) return void (notice.hidden = true);
  if (!status.enabled) {
    notice.className = 'notice muted';
    notice.textContent =
      'Evaluation spans are not exported to a tracing backend: results are kept here only (set OTEL_EXPORTER_OTLP_ENDPOINT to export them).';
    notice.hidden = false;
  } else if (status.waiting > 0) {
    notice.className = 'notice warn';
    const age =
      status.oldestAgeSeconds < 90
        ? `${Math.round(status.oldestAgeSeconds)} s`
        : `${Math.round(status.oldestAgeSeconds / 60)} min`;
    notice.textContent = `The tracing backend is not taking evaluation spans: ${status.waiting} trace(s) wait for a retried export (the oldest for ${age}). Their results are shown here already.`;
    notice.hidden = false;
  } else notice.hidden = true;
}

/** The time range of the summary drawn last (seconds), read by the chart's x scale. */
let chartRange = [0, 0];

function renderChart(summary) {
  chartRange = [summary.range.fromUnixMs / 1000, summary.range.toUnixMs / 1000];
  const scorers = [...new Set(summary.timeline.map(p => p.scorer))].sort();
  const minutes = [...new Set(summary.timeline.map(p => p.minuteUnixMs))].sort((a, b) => a - b);
  $('#chart-empty').hidden = minutes.length > 0;
  $('#chart').hidden = minutes.length === 0;
  const at = new Map(summary.timeline.map(p => [`${p.minuteUnixMs}|${p.scorer}`, p]));
  const data = [
    minutes.map(m => m / 1000),
    ...scorers.map(s =>
      minutes.map(m => {
        const p = at.get(`${m}|${s}`);
        return p && p.pass + p.fail ? (100 * p.pass) / (p.pass + p.fail) : null;
      }),
    ),
  ];
  const colors = ['#3559e0', '#17803d', '#b54708', '#b42318', '#7a3bd1', '#0e7490', '#9d174d'];
  const key = scorers.join('|');
  if (chart && key === chartSeries) return chart.setData(data);
  chart?.destroy();
  chartSeries = key;
  chart = new uPlot(
    {
      width: Math.min(1350, $('main').clientWidth - 20),
      height: 260,
      scales: {
        x: { time: true, range: () => chartRange },
        y: { range: [0, 100] },
      },
      axes: [{}, { label: 'pass rate %', values: (_, ticks) => ticks.map(v => `${v}%`) }],
      series: [
        {},
        ...scorers.map((s, i) => ({
          label: s,
          stroke: colors[i % colors.length],
          width: 2,
          spanGaps: true,
          points: { show: true },
        })),
      ],
    },
    data,
    $('#chart'),
  );
}

function renderTables(summary) {
  fillTable(
    'scorers',
    summary.byScorer.map(g =>
      h(
        'tr',
        {},
        h('th', { scope: 'row' }, g.scorer),
        h('td', { class: 'num' }, g.count),
        h('td', { class: 'num' }, g.pass),
        h('td', { class: 'num' }, g.fail),
        h('td', { class: 'num' }, g.skipped),
        h('td', { class: 'num' }, g.failed),
        h('td', { class: rateClass(g.passRate) }, pct(g.passRate)),
        h('td', { class: 'num' }, num(g.meanScore)),
        h('td', { class: 'num' }, usd(g.judgeCostUsd)),
      ),
    ),
    9,
  );
  fillTable(
    'targets',
    summary.byTarget.map(g =>
      h(
        'tr',
        {},
        h('th', { scope: 'row' }, g.testCaseId),
        h('td', {}, g.targetKind === 'rule' ? 'production rule' : g.suite),
        h('td', {}, g.scorer),
        h('td', { class: 'num' }, g.count),
        h('td', { class: 'num' }, g.pass),
        h('td', { class: 'num' }, g.fail),
        h('td', { class: rateClass(g.passRate) }, pct(g.passRate)),
        h('td', { class: 'num' }, num(g.meanScore)),
      ),
    ),
    8,
  );
  // Agents of multi-agent traces: the section shows only when there are some.
  $('#agents-section').hidden = summary.byAgent.length === 0;
  fillTable(
    'agents',
    summary.byAgent.map(g =>
      h(
        'tr',
        {},
        h('th', { scope: 'row' }, g.agent),
        h('td', { class: 'num' }, g.count),
        h('td', { class: 'num' }, g.pass),
        h('td', { class: 'num' }, g.fail),
        h('td', { class: rateClass(g.passRate) }, pct(g.passRate)),
        h('td', { class: g.blamed ? 'num rate-bad' : 'num' }, g.blamed),
      ),
    ),
    6,
  );
  fillTable(
    'not-scored',
    summary.notScored.map(r =>
      h('tr', {}, h('td', {}, r.reason), h('td', { class: 'num' }, r.count)),
    ),
    2,
  );
}

function renderFailures(page, ctx) {
  fillTable(
    'failures',
    page.results.map(r =>
      h(
        'tr',
        {},
        h('td', {}, time(r.timeUnixMs)),
        h('td', {}, r.testCaseId),
        h('td', {}, r.scorer),
        h('td', { class: 'num' }, num(r.score)),
        h('td', {}, r.reason),
        h('td', {}, diffView(r.toolDiff)),
        r.sessionId === undefined
          ? traceCell(r.traceId, ctx.config, ctx.showTrace)
          : sessionCell(r.sessionId, ctx.showSession),
      ),
    ),
    7,
  );
}
