// The Tools view: per service and tool, how its calls went (failed, refused, invalid arguments,
// never offered, loops, duration), with a per-minute trend; a row opens its failing traces, and a
// failing tool its failure signatures.
import { api } from './api.js';
import { badRateClass, fillTable, h, ms, pct, sparkbars } from './dom.js';
import { checkedBySchemaText, schemaSourceText } from './schema-source.js';

/**
 * Renders `GET /api/v1/tools`; `openTraces(filter)` shows the Traces view filtered,
 * `openFailures({ service, tool })` a tool's failure signatures.
 */
export function renderTools(tools, openTraces, openFailures) {
  const trend = new Map();
  for (const p of tools.timeline) {
    const key = `${p.service}\u0000${p.tool}`;
    if (!trend.has(key)) trend.set(key, []);
    trend.get(key).push(p);
  }
  fillTable(
    'tools',
    tools.tools.map(t => {
      const points = trend.get(`${t.service}\u0000${t.tool}`) ?? [];
      const failing = t.errors + t.refused + t.invalidArguments + t.unknown + t.repeated > 0;
      return h(
        'tr',
        { class: failing ? 'failing' : undefined },
        h(
          'th',
          { scope: 'row' },
          h(
            'button',
            {
              type: 'button',
              class: 'link',
              title: failing ? 'Show the traces where it went wrong' : 'Show its traces',
              onclick: () =>
                openTraces({
                  service: t.service,
                  tool: t.tool,
                  ...(t.errors ? { outcome: 'error' } : t.refused ? { outcome: 'refused' } : {}),
                }),
            },
            t.tool,
          ),
        ),
        h('td', {}, t.service),
        h('td', { class: 'num' }, t.calls),
        h('td', { class: badRateClass(t.errorRate) }, `${t.errors} (${pct(t.errorRate)})`),
        h('td', { class: badRateClass(t.refusedRate) }, t.refused),
        h(
          'td',
          {
            class: badRateClass(t.invalidRate),
            title: schemaSourceText(t.schema) || undefined,
          },
          t.checked ? `${t.invalidArguments} of ${t.checked} (${pct(t.invalidRate)})` : '–',
          schemaNote(t),
        ),
        h('td', { class: badRateClass(t.unknownRate) }, t.unknown),
        h('td', { class: badRateClass(t.repeatedRate) }, t.repeated),
        h('td', { class: 'num' }, ms(t.p50Ms)),
        h('td', { class: 'num' }, ms(t.p95Ms)),
        h(
          'td',
          { class: 'trend', title: 'calls per minute, the failed and refused ones in red' },
          sparkbars(
            points.map(p => p.calls),
            points.map(p => p.errors + p.refused),
          ),
        ),
        h(
          'td',
          {},
          t.errors + t.refused > 0
            ? h(
                'button',
                {
                  type: 'button',
                  class: 'link',
                  title: 'Its failed and refused calls, grouped by error',
                  onclick: () => openFailures({ service: t.service, tool: t.tool }),
                },
                'Signatures',
              )
            : '–',
        ),
      );
    }),
    12,
    'No tool calls in this window.',
  );
}

/**
 * Under the invalid-arguments count, when checks rested on schemas from outside the traces (or a
 * tool not checked yet has one): how many, and the schema a call without its own gets now.
 */
function schemaNote(t) {
  const checked = checkedBySchemaText(t);
  const source = schemaSourceText(t.schema);
  if (!checked && !(source && !t.checked)) return null;
  const text = checked ? [checked, source].filter(Boolean).join(' · ') : `no checks yet; ${source}`;
  return h('div', { class: 'muted schema-source' }, text);
}

export function loadTools(params) {
  return api(`tools?${params}`);
}
