import { Registry, type RegistryContentType } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { agentTrace, teamTrace } from '../../test/helpers/trace-builder.js';
import type { NormalizedTrace } from '../normalize/normalize-trace.js';
import type { ScorerOutcome } from '../score/run-scorers.js';
import type { TraceRun } from '../score/trace-run.js';
import { createServiceMetrics } from '../server/service-metrics.js';
import { createMetricsSink } from './metrics-sink.js';

const COUNTED = [
  'spanscore_traces_scored_total',
  'spanscore_traces_not_scored_total',
  'spanscore_scores_total',
  'spanscore_evaluations_total',
  'spanscore_agent_evaluations_total',
  'spanscore_agent_failures_total',
  'spanscore_tool_calls_total',
  'spanscore_evaluation_score',
];

function run(trace: NormalizedTrace, testCaseId: string, outcomes: ScorerOutcome[]): TraceRun {
  return {
    traceId: trace.traceId,
    phase: 'all',
    state: 'scored',
    reason: undefined,
    reasonCode: undefined,
    testCaseId,
    testCaseIdAttribute: undefined,
    serviceName: trace.serviceName ?? '',
    serviceVersion: '',
    deploymentEnvironment: '',
    diagnostics: [],
    results: [
      {
        phase: 'all',
        trace,
        kind: 'test_case',
        suite: 's',
        testCaseId,
        testCase: undefined,
        outcomes,
        deferred: [],
        startUnixNano: 1n,
        endUnixNano: 2n,
      },
    ],
  };
}

const blamed: ScorerOutcome = {
  scorer: 'tool_trajectory',
  kind: 'deterministic',
  result: {
    status: 'scored',
    score: 0,
    label: 'fail',
    reason: 'billing skipped verify',
    details: { forbiddenAgents: ['billing'] },
  },
};
const passed: ScorerOutcome = {
  scorer: 'tool_correctness',
  kind: 'deterministic',
  result: { status: 'scored', score: 1, label: 'pass', reason: 'ok', details: {} },
};
const skipped: ScorerOutcome = {
  scorer: 'rubric',
  kind: 'llm',
  result: { status: 'skipped', reason: 'no judge' },
};

/** Labels in one order whatever prom-client's. */
const key = (labels: object): string => JSON.stringify(Object.entries(labels).sort());

/** The score counters' series after `runs`, counted at once or deferred to the scrape. */
async function counted(runs: TraceRun[], deferred: boolean) {
  const registry = new Registry<RegistryContentType>();
  registry.setContentType(Registry.OPENMETRICS_CONTENT_TYPE);
  const metrics = createServiceMetrics(undefined, undefined, registry);
  const sink = createMetricsSink(deferred ? metrics : { ...metrics, beforeScrape: undefined }, {
    maxServices: 10,
    maxToolsPerService: 10,
    now: () => 0,
  });
  for (const r of runs) await sink.write(r);
  const all = await registry.getMetricsAsJSON();
  return all
    .filter(m => COUNTED.includes(m.name))
    .map(m => ({
      name: m.name,
      values: m.values
        .map(v => ({ labels: v.labels, value: v.value }))
        .sort((a, b) => key(a.labels).localeCompare(key(b.labels))),
    }));
}

describe('createMetricsSink', () => {
  it('counts every outcome, call and agent the same at once and deferred, run after run', async () => {
    const team = teamTrace(
      [
        { agent: 'triage', calls: [{ name: 'lookup' }], handoffTo: 'billing' },
        { agent: 'billing', calls: [{ name: 'refund' }] },
      ],
      { testCaseId: 'tc-team' },
    );
    const solo = agentTrace(['search', 'weather', 'search']);
    const notScored: TraceRun = {
      ...run(solo, 'x', []),
      state: 'not_scored',
      reasonCode: 'no_test_case' as TraceRun['reasonCode'],
    };
    const runs = [
      run(team, 'tc-team', [blamed, passed, skipped]),
      run(solo, 'tc-solo', [passed]),
      run(team, 'tc-team', [passed]),
      notScored,
    ];
    const now = await counted(runs, false);
    const later = await counted(runs, true);
    expect(later).toEqual(now);
    const series = (name: string) => now.find(m => m.name === name)!.values;
    expect(series('spanscore_agent_evaluations_total')).toEqual([
      { labels: { agent: 'billing', label: 'fail', scorer: 'tool_trajectory' }, value: 1 },
      { labels: { agent: 'billing', label: 'pass', scorer: 'tool_correctness' }, value: 2 },
      { labels: { agent: 'billing', label: 'skipped', scorer: 'rubric' }, value: 1 },
      { labels: { agent: 'triage', label: 'fail', scorer: 'tool_trajectory' }, value: 1 },
      { labels: { agent: 'triage', label: 'pass', scorer: 'tool_correctness' }, value: 2 },
      { labels: { agent: 'triage', label: 'skipped', scorer: 'rubric' }, value: 1 },
    ]);
    expect(series('spanscore_agent_failures_total')).toEqual([
      { labels: { agent: 'billing', scorer: 'tool_trajectory' }, value: 1 },
    ]);
    expect(series('spanscore_traces_scored_total')).toEqual([{ labels: {}, value: 3 }]);
    expect(series('spanscore_traces_not_scored_total')).toEqual([
      { labels: { reason: 'no_test_case' }, value: 1 },
    ]);
    const solos = series('spanscore_tool_calls_total').filter(v => v.labels.tool === 'search');
    expect(solos.map(v => v.value)).toEqual([2]);
  });
});
