// The run record of one trace, in a dialog: its facts, diagnostics, results, tool calls (with each
// call's outcome and what the tool-health checks found) and "Copy as test case".
import { api, apiText } from './api.js';
import { $, h, num } from './dom.js';
import { schemaSourceText } from './schema-source.js';

/** The expected-vs-actual tool diff of a result. */
export function diffView(steps) {
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

export async function showTrace(traceId, config) {
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
  body.replaceChildren(
    h(
      'dl',
      { class: 'facts' },
      facts.map(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]),
    ),
    ...(link ? [link] : []),
    ...diagnosticsView(run),
    resultsView(run),
    toolCallsView(run),
    ...(run.state === 'scored' ? [copyAsTestCase(traceId)] : []),
  );
}

function resultsView(run) {
  if (!run.results.length) return h('p', { class: 'muted' }, 'No results.');
  return h(
    'table',
    {},
    h('caption', {}, 'Results'),
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        ['Scorer', 'Test case / rule', 'Result', 'Score', 'Reason', 'Expected vs actual tools'].map(
          c => h('th', { scope: 'col' }, c),
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
          h('td', {}, r.testCaseId),
          h('td', {}, h('span', { class: `badge ${r.label ?? r.status}` }, r.label ?? r.status)),
          h('td', { class: 'num' }, num(r.score)),
          h('td', {}, r.reason),
          h('td', {}, diffView(r.toolDiff)),
        ),
      ),
    ),
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
 * "Copy as test case": the trace's test case as YAML (by `spanscore suite record`'s rules) on the
 * clipboard, and shown, to paste under a suite's testCases.
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
          const text = await apiText(`traces/${encodeURIComponent(traceId)}/test-case`);
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

export function exportText(status) {
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
 * The route of a multi-agent trace: `triage → billing (transfer_to_billing) → triage`, each agent
 * with the handoff tool that gave it control.
 */
function routeView(run) {
  if (!isTeam(run)) return null;
  return h(
    'p',
    { class: 'route' },
    h('strong', {}, 'Route: '),
    run.agents.flatMap((t, i) => [
      ...(i > 0 ? [' → '] : []),
      h('span', { class: 'agent' }, t.agent),
      ...(t.handoff ? [' ', h('span', { class: 'muted' }, `(${t.handoff})`)] : []),
    ]),
  );
}

/** A call's outcome: ok, or error / refused with the error text (its start; all of it on hover). */
function outcomeText(c) {
  const outcome = c.outcome ?? c.status;
  if (outcome === 'ok') return 'ok';
  const error = c.error ?? '';
  return `${outcome}${error ? `: ${error.length > 240 ? `${error.slice(0, 240)}…` : error}` : ''}`;
}

/** What tool health found of a call's arguments: valid, the problems, or a tool never offered. */
function checkView(c) {
  if (c.offered === false) return h('span', { class: 'rate-bad' }, 'not offered to the model');
  if (c.argumentProblems === undefined || c.argumentProblems === null)
    return h('span', { class: 'muted' }, '–');
  // A verdict resting on a schema from outside the trace says which.
  const source = schemaSourceText(c.schemaSource);
  const note = source ? h('div', { class: 'muted schema-source' }, `against the ${source}`) : null;
  if (c.argumentProblems.length === 0)
    return h('span', {}, h('span', { class: 'rate-ok' }, 'valid'), note);
  return h(
    'div',
    {},
    h(
      'ul',
      { class: 'problems' },
      c.argumentProblems.map(p => h('li', {}, p)),
    ),
    note,
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
  const columns = ['#', 'Tool', 'Source', 'Outcome', 'Arguments', 'Result', 'Arguments check'];
  const row = (c, i) =>
    h(
      'tr',
      { 'data-outcome': c.outcome ?? c.status },
      h('td', { class: 'num' }, i + 1),
      h('th', { scope: 'row', title: c.rawName }, c.name),
      h('td', {}, c.source),
      h(
        'td',
        {
          class: (c.outcome ?? c.status) === 'ok' ? undefined : 'rate-bad',
          title: c.error ?? undefined,
        },
        outcomeText(c),
      ),
      h('td', {}, content(c.arguments)),
      h('td', {}, content(c.result)),
      h('td', {}, checkView(c)),
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
