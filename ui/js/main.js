// The results page: reads /api/v1 and renders the view the address names (#overview, #tools,
// #traces). One refresh at a time, every 5 s while "Live" is on; each reads what its view shows
// (the overview: one summary and one page of failures).
import { api, useToken, whenAuthNeeded } from './api.js';
import { compare, fillVersions } from './compare.js';
import { $, filterOptions, h } from './dom.js';
import { refreshFailures, showFailures } from './failures.js';
import { renderOverview } from './overview.js';
import { loadTools, renderTools } from './tools.js';
import { showTrace } from './trace-view.js';
import { showSession } from './session-view.js';
import { renderTraces, setTracesQuery } from './traces.js';

const REFRESH_MS = 5000;
const VIEWS = ['overview', 'tools', 'traces'];
const filters = $('#filters');
const status = $('#status');

const ctx = {
  config: { traceUrlTemplate: null },
  window: '1h',
  showTrace: traceId => showTrace(traceId, ctx.config),
  showSession: (sessionId, part = 1) => showSession(sessionId, ctx, part),
};

whenAuthNeeded(() => ($('#auth').hidden = false));

function selected() {
  const f = new FormData(filters);
  const out = {};
  for (const key of ['scorer', 'testCase', 'service']) if (f.get(key)) out[key] = f.get(key);
  return { window: f.get('window'), ...out };
}

function fillSelect(name, values) {
  const select = filters.elements.namedItem(name);
  const current = select.value;
  const wanted = ['', ...filterOptions(values)];
  const have = [...select.options].map(o => o.value);
  if (wanted.join('\u0000') === have.join('\u0000')) return;
  select.replaceChildren(...wanted.map(v => h('option', { value: v }, v || 'all')));
  select.value = wanted.includes(current) ? current : '';
}

function view() {
  const name = new URLSearchParams(location.hash.slice(1)).keys().next().value;
  return VIEWS.includes(name) ? name : 'overview';
}

function showView() {
  const current = view();
  for (const name of VIEWS) {
    $(`#view-${name}`).hidden = name !== current;
    const link = $(`nav a[href="#${name}"]`);
    if (name === current) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
}

async function load() {
  const q = selected();
  ctx.window = q.window;
  const current = view();
  if (current === 'overview') {
    const failureParams = new URLSearchParams({
      label: 'fail',
      limit: '25',
      window: q.window,
    });
    for (const key of ['scorer', 'testCase', 'service']) if (q[key]) failureParams.set(key, q[key]);
    const [summary, failures] = await Promise.all([
      api(`summary?${new URLSearchParams(q)}`),
      api(`results?${failureParams}`),
    ]);
    fillSelect('scorer', summary.options.scorers);
    fillSelect('testCase', summary.options.testCases);
    fillSelect('service', summary.options.services);
    renderOverview(summary, failures, ctx);
  } else if (current === 'tools') {
    const params = new URLSearchParams({ window: q.window });
    if (q.service) params.set('service', q.service);
    renderTools(await loadTools(params), openTraces, target => {
      showFailures(target, params, ctx).catch(error => {
        status.textContent = `Could not load failure signatures: ${error.message}`;
      });
    });
    await refreshFailures(params, ctx);
  } else await renderTraces(ctx);
}

// One refresh at a time: a refresh asked for while one runs starts when it ends, once.
let running;
let again = false;
async function refresh() {
  if (running) {
    again = true;
    return running;
  }
  running = load()
    .then(() => {
      status.textContent = `Updated ${new Date().toLocaleTimeString()} · ${ctx.config.driver} driver · results kept ${ctx.config.retentionHours} h`;
    })
    .catch(error => {
      status.textContent = `Could not load results: ${error.message}`;
    })
    .finally(() => {
      running = undefined;
      if (again) {
        again = false;
        void refresh();
      }
    });
  return running;
}

function openTraces(filter) {
  setTracesQuery(filter);
  location.hash = 'traces';
}

let timer;
function schedule() {
  clearInterval(timer);
  if (filters.elements.namedItem('live').checked) timer = setInterval(refresh, REFRESH_MS);
}

filters.addEventListener('change', () => {
  schedule();
  void refresh();
});
window.addEventListener('hashchange', () => {
  const asked = new URLSearchParams(location.hash.slice(1));
  const trace = asked.get('trace');
  if (trace) return void ctx.showTrace(trace);
  const session = asked.get('session');
  if (session) return void ctx.showSession(session, partOf(asked));
  showView();
  void refresh();
});
$('#lookup').addEventListener('submit', event => {
  event.preventDefault();
  const id = new FormData(event.target).get('traceId').trim().toLowerCase();
  if (id) void ctx.showTrace(id);
});
$('#trace-search').addEventListener('submit', event => {
  event.preventDefault();
  void refresh();
});
$('#compare').addEventListener('submit', event => {
  event.preventDefault();
  void compare(selected().window, ctx);
});
$('#compare').addEventListener('change', event => {
  if (event.target.name !== 'by') return;
  for (const label of document.querySelectorAll('#compare .by-version'))
    label.hidden = event.target.value !== 'version';
});
$('#auth').addEventListener('submit', event => {
  event.preventDefault();
  useToken(new FormData(event.target).get('token'));
  $('#auth').hidden = true;
  void start();
});

async function start() {
  try {
    ctx.config = await api('config');
  } catch (error) {
    status.textContent = `Could not load results: ${error.message}`;
    return;
  }
  showView();
  await refresh();
  schedule();
  void fillVersions().catch(() => undefined);
  const asked = new URLSearchParams(location.hash.slice(1));
  if (asked.get('trace')) void ctx.showTrace(asked.get('trace'));
  else if (asked.get('session')) void ctx.showSession(asked.get('session'), partOf(asked));
}

/** The part an address names (`#session=<id>&part=<n>`), 1 by default. */
function partOf(asked) {
  const part = Number(asked.get('part') ?? '1');
  return Number.isInteger(part) && part >= 1 ? part : 1;
}

void start();
