// The requests the receiver refused whole in the window, by reason, with what it answered the
// latest one: why "No traces yet" when an exporter is misconfigured.
import { $, fillTable, h, time } from './dom.js';

/** How many requests the receiver refused in the summary's window. */
export const refusedCount = summary => (summary.refused ?? []).reduce((n, r) => n + r.count, 0);

/** What each refusal reason means, in words; the receiver's own answer follows it. */
const REFUSAL_WORDS = {
  wrong_path: 'Sent to a path that is no OTLP endpoint (404)',
  token: 'No, an unknown or a read-only bearer token (401/403)',
  content_type: 'A content type or encoding other than protobuf or JSON, gzip or none (415)',
  size: 'Too large (413)',
  decode: 'Not an OTLP request (400)',
  rate: 'Span buffer full (429): the exporter retries',
  unavailable: 'Span store unavailable (503): the exporter retries',
};

/** The requests the receiver refused whole, by reason: shown only when there are some. */
export function renderRefused(refused) {
  $('#refused-section').hidden = refused.length === 0;
  fillTable(
    'refused',
    refused.map(r =>
      h(
        'tr',
        { 'data-reason': r.reason },
        h('th', { scope: 'row' }, REFUSAL_WORDS[r.reason] ?? r.reason),
        h('td', { class: 'num' }, r.count),
        h('td', {}, time(r.lastAtUnixMs)),
        // The receiver's answer quotes the request: text, never markup.
        h('td', {}, h('code', {}, r.fix)),
      ),
    ),
    4,
  );
}
