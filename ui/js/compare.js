// Compare two service versions, or this window with the one before: per test case or rule and
// scorer, and per tool (error and invalid-argument rates), with Fisher's exact test; and the failure
// signatures new in the candidate.
import { api } from './api.js';
import { $, fillTable, filterOptions, h, pct } from './dom.js';
import { traceButtons } from './failures.js';

/** `80% (8/10) [0.49–0.94]`: a side's pass rate, counts and 95% interval. */
function sideText(side) {
  if (!side) return '–';
  if (side.passRate === null) return '– (0/0)';
  const [low, high] = side.interval;
  return `${Math.round(side.passRate * 100)}% (${side.passes}/${side.runs}) [${low.toFixed(2)}–${high.toFixed(2)}]`;
}

const VERDICT_ORDER = ['regressed', 'not_comparable', 'improved', 'new', 'removed', 'unchanged'];

const verdictClass = verdict =>
  verdict === 'regressed' ? 'rate-bad' : verdict === 'improved' ? 'rate-ok' : undefined;

function renderComparison(report, ctx) {
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
        h('td', { class: verdictClass(c.verdict) }, verdict),
      );
    });
  $('#comparison').hidden = false;
  fillTable('comparison', rows, 7);
  const tools = report.tools ?? [];
  $('#tool-comparison').hidden = tools.length === 0;
  const side = x => `${pct(x.rate)} (${x.count}/${x.of})`;
  fillTable(
    'tool-comparison',
    tools.map(t =>
      h(
        'tr',
        { 'data-verdict': t.verdict },
        h('th', { scope: 'row' }, t.tool),
        h('td', {}, t.service),
        h('td', {}, t.metric === 'error_rate' ? 'failed calls' : 'invalid arguments'),
        h('td', { class: 'num' }, side(t.baseline)),
        h('td', { class: 'num' }, side(t.candidate)),
        h('td', { class: 'num' }, t.pValue.toPrecision(2)),
        h('td', { class: verdictClass(t.verdict) }, t.verdict),
      ),
    ),
    7,
  );
  // Failure signatures the candidate has and the baseline had not (text from traces: as text).
  const fresh = report.newFailureSignatures ?? [];
  $('#new-signatures').hidden = fresh.length === 0;
  fillTable(
    'new-signatures',
    fresh.map(s =>
      h(
        'tr',
        {},
        h('th', { scope: 'row' }, s.tool),
        h('td', {}, s.service),
        h('td', { class: 'signature' }, h('code', {}, s.signature)),
        h('td', { class: 'num' }, s.count),
        h(
          'td',
          {},
          s.baselineOther
            ? `maybe: the baseline counted ${s.baselineOther} of its failures as other`
            : 'yes',
        ),
        h('td', { class: 'trace' }, traceButtons(s.exampleTraceIds, ctx)),
      ),
    ),
    6,
  );
}

export async function compare(window, ctx) {
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
    params.set('window', window);
  } else params.set('window', window); // the last window against the one before it
  try {
    renderComparison(await api(`compare?${params}`), ctx);
  } catch (error) {
    $('#compare-summary').textContent = `Could not compare: ${error.message}`;
  }
}

/** Offers the versions and services seen in the newest results. */
export async function fillVersions() {
  const page = await api('results?limit=500');
  const versions = filterOptions(page.results.map(r => r.serviceVersion));
  $('#versions').replaceChildren(...versions.map(v => h('option', { value: v })));
  const services = filterOptions(page.results.map(r => r.serviceName));
  const select = $('#compare').elements.namedItem('service');
  const current = select.value;
  select.replaceChildren(
    h('option', { value: '' }, 'all'),
    ...services.map(s => h('option', { value: s }, s)),
  );
  select.value = services.includes(current) ? current : '';
}
