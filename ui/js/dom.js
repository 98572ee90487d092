// Building the page's elements. Every text from the API goes in through text nodes (traces are
// untrusted input), never as markup.

export const $ = selector => document.querySelector(selector);

/** Builds an element: h('td', attributes, 'text', childNode, [more]). */
export function h(tag, attrs = {}, ...children) {
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

/** Fills a table's body, or says the window has nothing. */
export function fillTable(id, rows, columns, empty = 'Nothing in this window.') {
  const body = $(`#${id} tbody`);
  if (rows.length === 0) {
    body.replaceChildren(h('tr', {}, h('td', { colspan: columns, class: 'empty' }, empty)));
    return;
  }
  body.replaceChildren(...rows);
}

export const pct = rate =>
  rate === null || rate === undefined ? '–' : `${(rate * 100).toFixed(1)}%`;
export const num = n =>
  n === null || n === undefined ? '–' : Number.isInteger(n) ? String(n) : n.toFixed(2);
export const usd = n => (n ? `$${n.toFixed(4)}` : '–');
export const ms = n =>
  n === null || n === undefined ? '–' : `${n < 10 ? n.toFixed(1) : Math.round(n)} ms`;
export const rateClass = rate =>
  rate === null ? undefined : rate >= 0.9 ? 'num rate-ok' : 'num rate-bad';
/** The class of a rate that should stay low (errors, invalid arguments). */
export const badRateClass = rate => (rate ? 'num rate-bad' : 'num');
export const time = msUnix => new Date(msUnix).toLocaleTimeString();

/**
 * A service that set no `service.name`: spanscore's `unknown_service`, or an SDK's own
 * `unknown_service:<process>`.
 */
export const isUnnamedService = name =>
  name === 'unknown_service' || name.startsWith('unknown_service:');

/** A filter's options: each value once, sorted, without the empty one (the filter's "all"). */
export const filterOptions = values => [...new Set(values.filter(Boolean))].sort();

/** A session's result: a button that opens the session (its turns and results); `part` after the first. */
export function sessionCell(sessionId, showSession, part = 1) {
  const label = part > 1 ? `Session ${sessionId} part ${part}` : `Session ${sessionId}`;
  return h(
    'td',
    { class: 'trace' },
    h(
      'button',
      {
        type: 'button',
        onclick: () => showSession(sessionId),
        'aria-label': label,
        title: sessionId,
      },
      sessionId.length > 40 ? `${sessionId.slice(0, 40)}…` : sessionId,
      part > 1 ? ` (part ${part})` : '',
    ),
  );
}

/** A trace id as a button that opens its run record, and a link to the user's trace UI. */
export function traceCell(traceId, config, showTrace) {
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

/**
 * A small bar chart of counts per minute (`values`), and within each bar the share `bad` of it in
 * red; drawn on a canvas, so no markup comes from the data.
 */
export function sparkbars(values, bad = [], { width = 120, height = 24 } = {}) {
  const canvas = h('canvas', { width, height, class: 'sparkline', 'aria-hidden': 'true' });
  const context = canvas.getContext('2d');
  if (!context || values.length === 0) return canvas;
  const max = Math.max(1, ...values);
  const slot = width / Math.max(values.length, 12);
  values.forEach((v, i) => {
    const x = i * slot;
    const barHeight = Math.max(1, (v / max) * (height - 2));
    context.fillStyle = '#9fb0e8';
    context.fillRect(x, height - barHeight, Math.max(1, slot - 1), barHeight);
    const badHeight = ((bad[i] ?? 0) / max) * (height - 2);
    if (badHeight > 0) {
      context.fillStyle = '#b42318';
      context.fillRect(x, height - badHeight, Math.max(1, slot - 1), badHeight);
    }
  });
  return canvas;
}
