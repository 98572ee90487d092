// A tool's failure signatures (the Tools view opens them): its failed and refused calls grouped by
// normalized error text, with counts, first and last seen, versions and example traces. The text
// comes from traces: it goes in through text nodes (h()), never as markup.
import { api } from './api.js';
import { $, fillTable, h } from './dom.js';

/** The tool whose signatures are shown (its service and tool), so that a refresh reads them again. */
let shown;

const when = msUnix => (msUnix ? new Date(msUnix).toLocaleString() : '–');

/**
 * Example traces: each a button opening its run record, and a link to the user's trace UI when
 * one is configured.
 */
export function traceButtons(traceIds, ctx) {
  return traceIds.flatMap(traceId => {
    const out = [
      h(
        'button',
        {
          type: 'button',
          class: 'mono',
          onclick: () => ctx.showTrace(traceId),
          'aria-label': `Run record of trace ${traceId}`,
          title: traceId,
        },
        `${traceId.slice(0, 8)}…`,
      ),
    ];
    if (ctx.config.traceUrlTemplate)
      out.push(
        h(
          'a',
          {
            href: ctx.config.traceUrlTemplate.replaceAll('{traceId}', traceId),
            target: '_blank',
            rel: 'noopener',
            'aria-label': `Trace ${traceId} in the trace UI`,
          },
          '↗',
        ),
      );
    return out;
  });
}

function outcomeText(s) {
  if (s.errors && s.refused) return `${s.errors} failed, ${s.refused} refused`;
  return s.refused ? 'refused' : 'failed';
}

function render(target, failures, ctx) {
  $('#tool-failures').hidden = false;
  $('#tool-failures-title').textContent = `Failure signatures: ${target.tool}`;
  const other = failures.other.reduce((n, o) => n + o.count, 0);
  const notes = [`Service ${target.service}.`];
  if (other)
    notes.push(
      `${other} more failure${other === 1 ? '' : 's'} in other signatures (past 20 a tool, or the store's bound).`,
    );
  if (failures.heldSinceUnixMs)
    notes.push(`Signatures are held from ${when(failures.heldSinceUnixMs)} on only.`);
  $('#tool-failures-note').textContent = notes.join(' ');
  fillTable(
    'failure-signatures',
    failures.signatures.map(s =>
      h(
        'tr',
        {},
        h('td', { class: 'signature' }, h('code', {}, s.signature)),
        h('td', { class: 'num' }, s.count),
        h('td', {}, outcomeText(s)),
        h('td', {}, when(s.firstSeenUnixMs)),
        h('td', {}, when(s.lastSeenUnixMs)),
        h('td', {}, s.versions.join(', ') || '–'),
        h('td', { class: 'trace' }, traceButtons(s.exampleTraceIds, ctx)),
      ),
    ),
    7,
    'No failed or refused calls of this tool in this window.',
  );
}

/** Reads and shows the signatures of `target` (a service and tool) over the window of `params`. */
export async function showFailures(target, params, ctx) {
  shown = target;
  const query = new URLSearchParams(params);
  query.set('service', target.service);
  render(target, await api(`tools/${encodeURIComponent(target.tool)}/failures?${query}`), ctx);
}

/** Reads the shown signatures again (a refresh of the Tools view). */
export function refreshFailures(params, ctx) {
  return shown ? showFailures(shown, params, ctx) : undefined;
}

$('#tool-failures-close').addEventListener('click', () => {
  shown = undefined;
  $('#tool-failures').hidden = true;
});
