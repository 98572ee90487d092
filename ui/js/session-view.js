// The run record of one session (a conversation scored as one), in the trace dialog: its facts,
// results, and its turns in order, each with its trace and its tool calls; the turn a failing
// result names is marked.
import { api } from './api.js';
import { $, h, num } from './dom.js';
import { diffView, exportText } from './trace-view.js';

export async function showSession(sessionId, ctx, part = 1) {
  const dialog = $('#trace');
  const body = $('#trace-body');
  $('#trace-title').textContent =
    part > 1 ? `Session ${sessionId}, part ${part}` : `Session ${sessionId}`;
  body.replaceChildren(h('p', { class: 'muted' }, 'Loading…'));
  if (!dialog.open) dialog.showModal();
  let run;
  try {
    run = await api(`sessions/${encodeURIComponent(sessionId)}${part > 1 ? `?part=${part}` : ''}`);
  } catch (error) {
    body.replaceChildren(h('p', {}, error.message));
    return;
  }
  const turns = run.session?.traceIds ?? [];
  const failing = new Set(run.results.map(r => r.failingTurn).filter(n => n !== undefined));
  const facts = [
    ['State', h('span', { class: `badge ${run.state}` }, run.state.replace('_', ' '))],
    ['Reason', run.reason ?? '–'],
    ['Test case', run.matched.join(', ') || run.testCaseId || '–'],
    ['Turns', String(turns.length)],
    ...partFacts({ ...run.session, parts: run.parts }, sessionId, ctx),
    ['Service', run.serviceName || '–'],
    ['Evaluation spans', exportText(run.export)],
    ['Updated', new Date(run.updatedAtUnixMs).toLocaleString()],
  ];
  body.replaceChildren(
    h(
      'dl',
      { class: 'facts' },
      facts.map(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]),
    ),
    sessionResults(run),
    ...turns.map((traceId, i) => turnView(run, traceId, i, failing.has(i + 1), ctx)),
  );
}

/**
 * What a session's part says of its bounds: the cut it was scored at, what it continues (its
 * earlier turns are in the part before), and the session's other parts, each a button.
 */
function partFacts(session, sessionId, ctx) {
  if (!session) return [];
  const out = [];
  const part = session.part ?? 1;
  const parts = session.parts ?? [];
  if (session.cut) out.push(['Cut', `cut: ${session.cut} — ${session.cutReason ?? ''}`]);
  if (part > 1 && session.continues)
    out.push([
      'Continues',
      // The one wording of a continuation (docs/sessions.md quotes it).
      `continues part ${part - 1}, ${
        session.continues === 'idle'
          ? 'which was scored whole once idle (no cut) and let go since'
          : session.continues === 'failed'
            ? 'whose pass failed after its retries (its record says why)'
            : `which was cut (${session.continues})`
      }: its earlier turns are not here`,
    ]);
  if (parts.length > 1)
    out.push([
      'Parts',
      parts.map(n =>
        n === part
          ? h('span', { class: 'badge' }, `part ${n}`)
          : h(
              'button',
              { type: 'button', onclick: () => ctx.showSession(sessionId, n) },
              `part ${n}`,
            ),
      ),
    ]);
  return out;
}

function sessionResults(run) {
  if (!run.results.length) return h('p', { class: 'muted' }, 'No results.');
  return h(
    'table',
    {},
    h('caption', {}, 'Results of the session'),
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        ['Scorer', 'Result', 'Score', 'Failing turn', 'Reason', 'Expected vs actual tools'].map(c =>
          h('th', { scope: 'col' }, c),
        ),
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
          h('td', {}, h('span', { class: `badge ${r.label ?? r.status}` }, r.label ?? r.status)),
          h('td', { class: 'num' }, num(r.score)),
          h('td', { class: 'num' }, r.failingTurn ?? '–'),
          h('td', {}, r.reason),
          h('td', {}, diffView(r.toolDiff)),
        ),
      ),
    ),
  );
}

/** One turn: its trace (a button to its own record) and the calls it made, in order. */
function turnView(run, traceId, i, failing, ctx) {
  const calls = (run.toolCalls ?? []).filter(c => c.turn === i);
  const heading = h(
    'h3',
    {},
    `Turn ${i + 1} `,
    h(
      'button',
      {
        type: 'button',
        class: 'mono',
        onclick: () => ctx.showTrace(traceId),
        'aria-label': `Run record of trace ${traceId}`,
      },
      traceId.slice(0, 8) + '…',
    ),
    ...(failing ? [' ', h('span', { class: 'badge fail' }, 'failing turn')] : []),
  );
  const list =
    calls.length === 0
      ? h('p', { class: 'muted' }, 'No tool calls in this turn.')
      : h(
          'ol',
          { class: 'turn-calls' },
          calls.map(c =>
            h(
              'li',
              { 'data-outcome': c.outcome ?? c.status },
              h('strong', { title: c.rawName }, c.name),
              c.arguments === undefined ? '' : [' ', h('code', {}, c.arguments)],
              (c.outcome ?? c.status) === 'ok'
                ? ''
                : [' ', h('span', { class: 'rate-bad' }, c.outcome ?? c.status)],
            ),
          ),
        );
  return h(
    'section',
    {
      class: failing ? 'turn failing' : 'turn',
      'aria-label': `Turn ${i + 1}${failing ? ', failing' : ''}`,
    },
    heading,
    list,
  );
}
