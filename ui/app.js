// The results page: reads /api/v1 and renders it. No framework; uPlot draws the chart.
// Every text from the API goes in through textContent (traces are untrusted input).

const $ = selector => document.querySelector(selector);
const filters = $('#filters');
const status = $('#status');
const REFRESH_MS = 5000;

// A token given as #token=… is kept for this tab only and taken out of the address bar at once,
// so it is not left in the history, a bookmark or a screenshot. It never goes in a URL to the
// server: only in the Authorization header.
const hash = new URLSearchParams(location.hash.slice(1));
let token = hash.get('token') ?? sessionStorage.getItem('spanscore.token');
if (token) sessionStorage.setItem('spanscore.token', token);
if (hash.has('token')) {
  hash.delete('token');
  const rest = hash.toString();
  history.replaceState(null, '', `${location.pathname}${location.search}${rest ? `#${rest}` : ''}`);
}
let config = { traceUrlTemplate: null };
let chart;
let chartSeries = '';
let timer;

/** Builds an element: h('td', attributes, 'text', childNode). */
function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat(Infinity))
    if (c !== null && c !== undefined) el.append(c instanceof Node ? c : String(c));
  return el;
}

async function api(path) {
  const response = await fetch(`../api/v1/${path}`, {
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
  if (response.status === 401) {
    $('#auth').hidden = false;
    throw new Error('this service needs a read token');
  }
  const body = await response.json();
  if (response.status === 403) {
    $('#auth').hidden = false;
    throw new Error(body.error ?? 'this token may not read results');
  }
  if (!response.ok) throw new Error(body.error ?? `HTTP ${response.status}`);
  return body;
}

const pct = rate => (rate === null ? '–' : `${(rate * 100).toFixed(1)}%`);
const num = n =>
  n === null || n === undefined ? '–' : Number.isInteger(n) ? String(n) : n.toFixed(2);
const usd = n => (n ? `$${n.toFixed(4)}` : '–');
const rateClass = rate =>
  rate === null ? undefined : rate >= 0.9 ? 'num rate-ok' : 'num rate-bad';
const time = ms => new Date(ms).toLocaleTimeString();

function selected() {
  const f = new FormData(filters);
  const out = {};
  for (const key of ['scorer', 'testCase', 'service']) if (f.get(key)) out[key] = f.get(key);
  return { window: f.get('window'), ...out };
}

function fillSelect(name, values) {
  const select = filters.elements.namedItem(name);
  const current = select.value;
  const wanted = ['', ...[...new Set(values)].sort()];
  const have = [...select.options].map(o => o.value);
  if (wanted.join('\u0000') === have.join('\u0000')) return;
  select.replaceChildren(...wanted.map(v => h('option', { value: v }, v || 'all')));
  select.value = wanted.includes(current) ? current : '';
}

function diffView(steps) {
  if (!steps) return h('span', { class: 'muted' }, 'no expected tools');
  if (steps.length === 0) return h('span', { class: 'muted' }, 'none expected, none called');
  return h(
    'div',
    { class: 'diff' },
    steps.map(s =>
      h(
        'span',
        {
          class: s.op,
          title: {
            same: 'expected and called',
            missing: 'expected, not called',
            extra: 'called, not expected',
          }[s.op],
        },
        s.op === 'missing' ? `−${s.name}` : s.op === 'extra' ? `+${s.name}` : s.name,
      ),
    ),
  );
}

function traceCell(traceId) {
  const cell = h(
    'td',
    { class: 'trace' },
    h(
      'button',
      {
        type: 'button',
        class: 'mono',
        onclick: () => showTrace(traceId),
        'aria-label': `Run record of trace ${traceId}`,
      },
      traceId.slice(0, 8) + '…',
    ),
  );
  if (config.traceUrlTemplate)
    cell.append(
      ' ',
      h(
        'a',
        {
          href: config.traceUrlTemplate.replaceAll('{traceId}', traceId),
          target: '_blank',
          rel: 'noopener',
        },
        'open trace',
      ),
    );
  return cell;
}

function fillTable(id, rows, columns) {
  const body = $(`#${id} tbody`);
  if (rows.length === 0) {
    body.replaceChildren(
      h('tr', {}, h('td', { colspan: columns, class: 'empty' }, 'Nothing in this window.')),
    );
    return;
  }
  body.replaceChildren(...rows);
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
    ['Judge cost', usd(t.judgeCostUsd)],
  ];
  $('#totals').replaceChildren(
    ...cards.map(([k, v]) => h('div', {}, h('dt', {}, k), h('dd', {}, v))),
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

function renderChart(summary) {
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
      width: Math.min(1350, document.querySelector('main').clientWidth - 20),
      height: 260,
      scales: {
        x: {
          time: true,
          range: () => [(Date.now() - windowMs(selected().window)) / 1000, Date.now() / 1000],
        },
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
  fillTable(
    'not-scored',
    summary.notScored.map(r =>
      h('tr', {}, h('td', {}, r.reason), h('td', { class: 'num' }, r.count)),
    ),
    2,
  );
}

function renderFailures(page) {
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
        traceCell(r.traceId),
      ),
    ),
    7,
  );
}

async function refresh() {
  const q = selected();
  const params = new URLSearchParams(q);
  const failureParams = new URLSearchParams({
    label: 'fail',
    limit: '25',
    from: String(Date.now() - windowMs(q.window)),
  });
  for (const key of ['scorer', 'testCase', 'service']) if (q[key]) failureParams.set(key, q[key]);
  try {
    const [summary, failures] = await Promise.all([
      api(`summary?${params}`),
      api(`results?${failureParams}`),
    ]);
    const all = await api(`summary?window=${q.window}`);
    fillSelect(
      'scorer',
      all.byScorer.map(g => g.scorer),
    );
    fillSelect(
      'testCase',
      all.byTarget.map(g => g.testCaseId),
    );
    fillSelect(
      'service',
      all.byService.map(g => g.serviceName),
    );
    renderTotals(summary);
    renderExport(summary.export);
    renderChart(summary);
    renderTables(summary);
    renderFailures(failures);
    status.textContent = `Updated ${new Date().toLocaleTimeString()} · ${config.driver} driver · results kept ${config.retentionHours} h`;
  } catch (error) {
    status.textContent = `Could not load results: ${error.message}`;
  }
}

function windowMs(w) {
  return Number(w.slice(0, -1)) * { m: 60_000, h: 3_600_000, d: 86_400_000 }[w.at(-1)];
}

async function showTrace(traceId) {
  const dialog = $('#trace');
  const body = $('#trace-body');
  $('#trace-title').textContent = `Trace ${traceId}`;
  body.replaceChildren(h('p', { class: 'muted' }, 'Loading…'));
  if (!dialog.open) dialog.showModal();
  let run;
  try {
    run = await api(`traces/${encodeURIComponent(traceId)}`);
  } catch (error) {
    body.replaceChildren(h('p', {}, error.message));
    return;
  }
  const facts = [
    ['State', h('span', { class: `badge ${run.state}` }, run.state.replace('_', ' '))],
    ['Reason', run.reason ?? '–'],
    ['Test case id', run.testCaseId ?? '–'],
    ['Service', run.serviceName || '–'],
    ['Scored against', run.matched.join(', ') || '–'],
    ['Waiting for the judge', run.awaitingJudge.join(', ') || '–'],
    ['Evaluation spans', exportText(run.export)],
    ['Updated', new Date(run.updatedAtUnixMs).toLocaleString()],
  ];
  const link = config.traceUrlTemplate
    ? h(
        'p',
        {},
        h(
          'a',
          {
            href: config.traceUrlTemplate.replaceAll('{traceId}', traceId),
            target: '_blank',
            rel: 'noopener',
          },
          'Open in your trace UI',
        ),
      )
    : null;
  const results = run.results.length
    ? h(
        'table',
        {},
        h('caption', {}, 'Results'),
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            [
              'Scorer',
              'Test case / rule',
              'Result',
              'Score',
              'Reason',
              'Expected vs actual tools',
            ].map(c => h('th', { scope: 'col' }, c)),
          ),
        ),
        h(
          'tbody',
          {},
          run.results.map(r =>
            h(
              'tr',
              {},
              h('th', { scope: 'row' }, r.scorer),
              h('td', {}, r.testCaseId),
              h(
                'td',
                {},
                h('span', { class: `badge ${r.label ?? r.status}` }, r.label ?? r.status),
              ),
              h('td', { class: 'num' }, num(r.score)),
              h('td', {}, r.reason),
              h('td', {}, diffView(r.toolDiff)),
            ),
          ),
        ),
      )
    : h('p', { class: 'muted' }, 'No results.');
  body.replaceChildren(
    h(
      'dl',
      { class: 'facts' },
      facts.map(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]),
    ),
    ...(link ? [link] : []),
    ...diagnosticsView(run),
    results,
    toolCallsView(run),
    ...(run.state === 'scored' ? [copyAsTestCase(traceId)] : []),
  );
}

/** Why a score may be wrong for a reason outside the agent (see `spanscore inspect`). */
function diagnosticsView(run) {
  const diagnostics = run.diagnostics ?? [];
  if (diagnostics.length === 0) return [];
  return [
    h(
      'section',
      { class: 'diagnostics', 'aria-label': 'Diagnostics' },
      h('h3', {}, 'Diagnostics'),
      h(
        'ul',
        {},
        diagnostics.map(d => h('li', {}, h('code', {}, d.code), ': ', d.message)),
      ),
    ),
  ];
}

/**
 * "Copy as test case": the trace's test case as YAML (by `spanscore suite record`'s rules) on
 * the clipboard, and shown, to paste under a suite's testCases.
 */
function copyAsTestCase(traceId) {
  const yaml = h('pre', { class: 'test-case', hidden: true });
  const said = h('span', { class: 'muted', role: 'status' });
  const button = h(
    'button',
    {
      type: 'button',
      onclick: async () => {
        try {
          const response = await fetch(
            `../api/v1/traces/${encodeURIComponent(traceId)}/test-case`,
            { headers: token ? { authorization: `Bearer ${token}` } : {} },
          );
          if (!response.ok)
            throw new Error((await response.json()).error ?? `HTTP ${response.status}`);
          const text = await response.text();
          yaml.textContent = text;
          yaml.hidden = false;
          await navigator.clipboard.writeText(text);
          said.textContent = 'Copied: paste it under testCases in your suite.';
        } catch (error) {
          said.textContent = yaml.hidden
            ? `Could not make the test case: ${error.message}`
            : 'Select the YAML below to copy it (the clipboard is not available here).';
        }
      },
    },
    'Copy as test case',
  );
  return h('section', { class: 'copy-test-case' }, h('p', {}, button, ' ', said), yaml);
}

function exportText(status) {
  if (!status) return '–';
  const state = h('span', { class: `badge export-${status.state}` }, status.state);
  const attempts = status.attempts ? ` after ${status.attempts} attempt(s)` : '';
  const detail = {
    pending: status.lastError ? `retrying${attempts}: ${status.lastError}` : 'being written',
    exported: `written into the trace${attempts}`,
    failed: `gave up${attempts}: ${status.lastError ?? ''}`,
    disabled: 'export is off: results are kept here only',
  }[status.state];
  return h('span', {}, state, ' ', detail ?? '');
}

/** A trace whose route went through more than one agent. */
function isTeam(run) {
  return new Set((run.agents ?? []).map(t => t.agent)).size > 1;
}

/**
 * The route of a multi-agent trace: `triage → billing (transfer_to_billing) → triage`, each
 * agent with the handoff tool that gave it control.
 */
function routeView(run) {
  if (!isTeam(run)) return null;
  const turns = run.agents;
  return h(
    'p',
    { class: 'route' },
    h('strong', {}, 'Route: '),
    turns.flatMap((t, i) => [
      ...(i > 0 ? [' → '] : []),
      h('span', { class: 'agent' }, t.agent),
      ...(t.handoff ? [' ', h('span', { class: 'muted' }, `(${t.handoff})`)] : []),
    ]),
  );
}

function toolCallsView(run) {
  const calls = run.toolCalls ?? [];
  if (calls.length === 0)
    return h('div', {}, routeView(run), h('p', { class: 'muted' }, 'No tool calls recorded.'));
  const note = run.contentKept
    ? null
    : h(
        'p',
        { class: 'muted' },
        'Arguments and results were not kept (results.storeContent is off); they were scored all the same.',
      );
  const content = text =>
    text === undefined ? h('span', { class: 'muted' }, '–') : h('code', {}, text);
  const columns = ['#', 'Tool', 'Source', 'Status', 'Arguments', 'Result'];
  const row = (c, i) =>
    h(
      'tr',
      {},
      h('td', { class: 'num' }, i + 1),
      h('th', { scope: 'row', title: c.rawName }, c.name),
      h('td', {}, c.source),
      h('td', {}, c.status === 'error' ? `error${c.error ? `: ${c.error}` : ''}` : 'ok'),
      h('td', {}, content(c.arguments)),
      h('td', {}, content(c.result)),
    );
  // A multi-agent trace: one group of rows per agent's consecutive calls, headed by the agent.
  const team = isTeam(run);
  const groups = [];
  calls.forEach((c, i) => {
    const agent = team ? (c.agent ?? '(no agent)') : undefined;
    const last = groups[groups.length - 1];
    if (last && last.agent === agent) last.rows.push(row(c, i));
    else groups.push({ agent, rows: [row(c, i)] });
  });
  return h(
    'div',
    {},
    routeView(run),
    h(
      'table',
      { class: 'calls' },
      h('caption', {}, team ? 'Tool calls, in order, by agent' : 'Tool calls, in order'),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          columns.map(c => h('th', { scope: 'col' }, c)),
        ),
      ),
      groups.map(g =>
        h(
          'tbody',
          {},
          ...(g.agent === undefined
            ? []
            : [
                h(
                  'tr',
                  { class: 'agent-group' },
                  h('th', { scope: 'rowgroup', colspan: columns.length }, g.agent),
                ),
              ]),
          g.rows,
        ),
      ),
    ),
    note,
  );
}

/** `80% (8/10) [0.49–0.94]`: a side's pass rate, counts and 95% interval. */
function sideText(side) {
  if (!side) return '–';
  if (side.passRate === null) return '– (0/0)';
  const [low, high] = side.interval;
  return `${Math.round(side.passRate * 100)}% (${side.passes}/${side.runs}) [${low.toFixed(2)}–${high.toFixed(2)}]`;
}

const VERDICT_ORDER = ['regressed', 'not_comparable', 'improved', 'new', 'removed', 'unchanged'];

function renderComparison(report) {
  const s = report.summary;
  $('#compare-summary').textContent =
    `${s.total} compared: ${s.regressed} regressed, ${s.improved} improved, ${s.unchanged} unchanged ` +
    `(${s.flips} flip${s.flips === 1 ? '' : 's'}), ${s.new} new, ${s.removed} removed, ` +
    `${s.not_comparable} not comparable; significant when p < ${report.alpha}` +
    (report.truncated ? ' (only the newest 100,000 results of a side were read)' : '');
  const rows = [...report.comparisons]
    .sort(
      (a, b) =>
        VERDICT_ORDER.indexOf(a.verdict) - VERDICT_ORDER.indexOf(b.verdict) ||
        Number(b.flip) - Number(a.flip),
    )
    .map(c => {
      const delta =
        c.baseline?.passRate == null || c.current?.passRate == null
          ? ''
          : Math.round((c.current.passRate - c.baseline.passRate) * 100);
      const verdict = c.flip ? `${c.verdict} (flip)` : c.verdict.replace('_', ' ');
      return h(
        'tr',
        { 'data-verdict': c.verdict },
        h('th', { scope: 'row' }, c.testCaseId),
        h('td', {}, c.scorer),
        h('td', { class: 'num' }, sideText(c.baseline)),
        h('td', { class: 'num' }, sideText(c.current)),
        h('td', { class: 'num' }, delta === '' ? '' : delta > 0 ? `+${delta}` : String(delta)),
        h('td', { class: 'num' }, c.pValue === null ? '' : c.pValue.toPrecision(2)),
        h(
          'td',
          {
            class:
              c.verdict === 'regressed'
                ? 'rate-bad'
                : c.verdict === 'improved'
                  ? 'rate-ok'
                  : undefined,
          },
          verdict,
        ),
      );
    });
  $('#comparison').hidden = false;
  fillTable('comparison', rows, 7);
}

async function compare() {
  const form = new FormData($('#compare'));
  const params = new URLSearchParams({ by: form.get('by') });
  if (form.get('service')) params.set('service', form.get('service'));
  if (form.get('by') === 'version') {
    const [baseline, candidate] = [form.get('baseline').trim(), form.get('candidate').trim()];
    if (!baseline || !candidate) {
      $('#compare-summary').textContent = 'Name the two versions to compare.';
      return;
    }
    params.set('baseline', baseline);
    params.set('candidate', candidate);
    params.set('window', selected().window);
  } else {
    const w = windowMs(selected().window);
    const now = Date.now();
    params.set('candidateFrom', String(now - w));
    params.set('candidateTo', String(now));
    params.set('baselineFrom', String(now - 2 * w));
    params.set('baselineTo', String(now - w));
  }
  try {
    renderComparison(await api(`compare?${params}`));
  } catch (error) {
    $('#compare-summary').textContent = `Could not compare: ${error.message}`;
  }
}

/** Offers the versions seen in the newest results. */
async function fillVersions() {
  const page = await api('results?limit=500');
  const versions = [...new Set(page.results.map(r => r.serviceVersion).filter(Boolean))].sort();
  $('#versions').replaceChildren(...versions.map(v => h('option', { value: v })));
  const services = [...new Set(page.results.map(r => r.serviceName))].sort();
  const select = $('#compare').elements.namedItem('service');
  const current = select.value;
  select.replaceChildren(
    h('option', { value: '' }, 'all'),
    ...services.map(s => h('option', { value: s }, s)),
  );
  select.value = services.includes(current) ? current : '';
}

function schedule() {
  clearInterval(timer);
  if (filters.elements.namedItem('live').checked) timer = setInterval(refresh, REFRESH_MS);
}

filters.addEventListener('change', () => {
  schedule();
  void refresh();
});
$('#lookup').addEventListener('submit', event => {
  event.preventDefault();
  const id = new FormData(event.target).get('traceId').trim().toLowerCase();
  if (id) void showTrace(id);
});
$('#compare').addEventListener('submit', event => {
  event.preventDefault();
  void compare();
});
$('#compare').addEventListener('change', event => {
  if (event.target.name !== 'by') return;
  for (const label of document.querySelectorAll('#compare .by-version'))
    label.hidden = event.target.value !== 'version';
});
$('#auth').addEventListener('submit', event => {
  event.preventDefault();
  token = new FormData(event.target).get('token');
  sessionStorage.setItem('spanscore.token', token);
  $('#auth').hidden = true;
  void start();
});

async function start() {
  try {
    config = await api('config');
  } catch (error) {
    status.textContent = `Could not load results: ${error.message}`;
    return;
  }
  await refresh();
  schedule();
  void fillVersions().catch(() => undefined);
  const fromHash = new URLSearchParams(location.hash.slice(1)).get('trace');
  if (fromHash) void showTrace(fromHash);
}

void start();
