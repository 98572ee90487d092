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
  const [page, sessions, open] = await Promise.all([
    api(`traces?${tracesQuery()}`),
    api('sessions?limit=20'),
    api('sessions?state=open&limit=20'),
  ]);
  renderOpenSessions(open);
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

/**
 * Conversations held, not scored yet (or to be scored again), newest first: their turns so far
 * and when each will be scored unless another turn comes. Text only: session ids are untrusted.
 */
function renderOpenSessions(page) {
  const now = Date.now();
  fillTable(
    'open-session-list',
    page.sessions.map(s =>
      h(
        'tr',
        { 'data-state': 'open' },
        h('td', { class: 'mono', title: s.sessionId }, shortId(s.sessionId)),
        h('td', { class: 'num' }, s.part),
        h(
          'td',
          { title: s.traceIds.join('\n') },
          `${s.traceIds.length}: `,
          s.traceIds.map(id => `${id.slice(0, 8)}…`).join(', '),
        ),
        h('td', {}, time(s.firstAtMs)),
        h('td', {}, time(s.lastAtMs)),
        h('td', {}, scoredWhen(s.scoreAtMs, now)),
        h('td', { class: 'num' }, s.bytes.toLocaleString('en')),
      ),
    ),
    7,
    'No session is held open.',
  );
}

/** When an open session will be scored: a time, and how long from now. */
function scoredWhen(scoreAtMs, now) {
  if (scoreAtMs === null || scoreAtMs === undefined) return 'being scored now';
  const seconds = Math.max(0, Math.round((scoreAtMs - now) / 1000));
  const wait = seconds < 120 ? `${seconds} s` : `${Math.round(seconds / 60)} min`;
  return `${time(scoreAtMs)} (in ${wait}, unless another turn comes)`;
}

const shortId = id => (id.length > 40 ? `${id.slice(0, 40)}…` : id);

/** A listed part's column: which part, and what cut it or what it continues. */
function partText(session) {
  const parts = [];
  if (session.part > 1) parts.push(`part ${session.part}, continues: ${session.continues ?? '?'}`);
  if (session.cut) parts.push(`cut: ${session.cut}`);
  return parts.join('; ') || '–';
}

/** Conversations scored as one, newest first, each part its own row: each opens its session view. */
function renderSessions(page, ctx) {
  fillTable(
    'session-list',
    page.sessions.map(s =>
      h(
        'tr',
        { 'data-state': s.state },
        h('td', {}, time(s.timeUnixMs)),
        sessionCell(s.session.id, id => ctx.showSession(id, s.session.part ?? 1), s.session.part),
        h('td', {}, s.matched.join(', ') || (s.reason ?? '–')),
        h('td', { class: 'num' }, s.session.traces),
        h('td', {}, s.tools.join(', ') || '–', s.toolCalls > s.tools.length ? ' …' : ''),
        h(
          'td',
          { class: s.results.fail ? 'num rate-bad' : 'num' },
          `${s.results.pass} pass, ${s.results.fail} fail`,
        ),
        h('td', { title: s.session.cutReason ?? '' }, partText(s.session)),
      ),
    ),
    7,
    'No session scored yet: a session test case (session: true) is scored once its conversation is idle.',
  );
}
