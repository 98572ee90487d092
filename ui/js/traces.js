// The Traces view: recent traces, scored or not (and why not), searchable by service, tool,
// outcome and state.
import { api } from './api.js';
import { $, fillTable, h, isUnnamedService, sessionCell, time, traceCell } from './dom.js';

export function tracesQuery() {
  const form = new FormData($('#trace-search'));
  const params = new URLSearchParams({ limit: '50' });
  for (const key of ['service', 'tool', 'outcome', 'state'])
    if (form.get(key)) params.set(key, form.get(key).trim());
  return params;
}

/** Sets the search form's fields (the Tools view opens a tool's failing traces this way). */
export function setTracesQuery(filter) {
  const form = $('#trace-search');
  for (const key of ['service', 'tool', 'outcome', 'state'])
    form.elements.namedItem(key).value = filter[key] ?? '';
}

export async function renderTraces(ctx) {
  const [page, sessions] = await Promise.all([
    api(`traces?${tracesQuery()}`),
    api('sessions?limit=20'),
  ]);
  renderSessions(sessions, ctx);
  fillTable(
    'trace-list',
    page.traces.map(t => {
      const results = t.results.pass + t.results.fail + t.results.skipped + t.results.failed;
      const calls = [
        t.outcomes.error ? `${t.outcomes.error} failed` : null,
        t.outcomes.refused ? `${t.outcomes.refused} refused` : null,
      ].filter(Boolean);
      return h(
        'tr',
        { 'data-state': t.state },
        h('td', {}, time(t.timeUnixMs)),
        traceCell(t.traceId, ctx.config, ctx.showTrace),
        h(
          'td',
          isUnnamedService(t.serviceName)
            ? { title: 'no service.name: set OTEL_SERVICE_NAME in the agent' }
            : {},
          t.serviceName || '–',
        ),
        h('td', {}, h('span', { class: `badge ${t.state}` }, t.state.replace('_', ' '))),
        h('td', {}, t.state === 'scored' ? t.matched.join(', ') : (t.reason ?? '–')),
        h('td', {}, t.tools.join(', ') || '–', t.toolCalls > t.tools.length ? ' …' : ''),
        h(
          'td',
          { class: calls.length ? 'rate-bad' : undefined },
          calls.join(', ') || (t.toolCalls ? 'ok' : '–'),
        ),
        h('td', { class: 'num' }, results ? `${t.results.pass} pass, ${t.results.fail} fail` : '–'),
      );
    }),
    8,
    'No traces match.',
  );
  $('#trace-list-more').hidden = page.nextCursor === null;
  renderUnnamed(page.traces.filter(t => isUnnamedService(t.serviceName)).length);
}

/** Traces from a service that set no `service.name`: what they are listed as, and the fix. */
function renderUnnamed(count) {
  const note = $('#trace-list-unnamed');
  note.hidden = count === 0;
  if (count === 0) return;
  note.replaceChildren(
    `${count} of these traces ${count === 1 ? 'carries' : 'carry'} no service.name resource attribute: they are listed as `,
    h('code', {}, 'unknown_service'),
    ' (or the SDK’s own unknown_service:<process>). Name the service where the agent runs: ',
    h('code', {}, 'OTEL_SERVICE_NAME=my-agent'),
    ' (or service.name in ',
    h('code', {}, 'OTEL_RESOURCE_ATTRIBUTES'),
    ').',
  );
}

/** Conversations scored as one, newest first: each opens its session view. */
function renderSessions(page, ctx) {
  fillTable(
    'session-list',
    page.sessions.map(s =>
      h(
        'tr',
        { 'data-state': s.state },
        h('td', {}, time(s.timeUnixMs)),
        sessionCell(s.session.id, ctx.showSession),
        h('td', {}, s.matched.join(', ') || (s.reason ?? '–')),
        h('td', { class: 'num' }, s.session.traces),
        h('td', {}, s.tools.join(', ') || '–', s.toolCalls > s.tools.length ? ' …' : ''),
        h(
          'td',
          { class: s.results.fail ? 'num rate-bad' : 'num' },
          `${s.results.pass} pass, ${s.results.fail} fail`,
        ),
      ),
    ),
    6,
    'No session scored yet: a session test case (session: true) is scored once its conversation is idle.',
  );
}
