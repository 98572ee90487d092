import { Counter, Gauge, type Registry } from 'prom-client';
import { createReceiverMetrics, type ReceiverMetrics } from '../ingest/receiver-metrics.js';

/** Everything `/metrics` shows: the receiver's metrics plus assembly, scoring and export. */
export interface ServiceMetrics extends ReceiverMetrics {
  tracesScored: Counter;
  traceFailures: Counter;
  lateSpans: Counter;
  exportFailures: Counter;
  scores: Counter<'scorer' | 'status' | 'label'>;
  jobs: Gauge<'state'>;
  judgeCalls: Counter<'model' | 'outcome'>;
  judgeTokens: Counter<'model' | 'direction'>;
  judgeCostUsd: Counter<'model'>;
}

/** Creates the service metrics; `jobsByState` (BullMQ driver) is read at each scrape. */
export function createServiceMetrics(
  jobsByState?: () => Promise<Record<string, number>>,
  registry?: Registry,
): ServiceMetrics {
  const base = createReceiverMetrics(registry);
  const registers = [base.registry];
  return {
    ...base,
    tracesScored: new Counter({
      name: 'spanscore_traces_scored_total',
      help: 'Traces scored and written back',
      registers,
    }),
    traceFailures: new Counter({
      name: 'spanscore_trace_failures_total',
      help: 'Traces that could not be scored after retries',
      registers,
    }),
    lateSpans: new Counter({
      name: 'spanscore_late_spans_total',
      help: 'Spans that arrived after their trace was scored',
      registers,
    }),
    exportFailures: new Counter({
      name: 'spanscore_export_failures_total',
      help: 'Failed exports of evaluation spans (each is retried)',
      registers,
    }),
    scores: new Counter({
      name: 'spanscore_scores_total',
      help: 'Scorer results by scorer, status and label',
      labelNames: ['scorer', 'status', 'label'],
      registers,
    }),
    judgeCalls: new Counter({
      name: 'spanscore_judge_calls_total',
      help: 'LLM judge calls by model and outcome (answered, cached, or the error code)',
      labelNames: ['model', 'outcome'],
      registers,
    }),
    judgeTokens: new Counter({
      name: 'spanscore_judge_tokens_total',
      help: 'LLM judge tokens by model and direction (input, output)',
      labelNames: ['model', 'direction'],
      registers,
    }),
    judgeCostUsd: new Counter({
      name: 'spanscore_judge_cost_usd_total',
      help: 'Estimated LLM judge cost in US dollars, from judge.prices',
      labelNames: ['model'],
      registers,
    }),
    jobs: new Gauge({
      name: 'spanscore_jobs',
      help: 'Queued work by state: trace jobs, and judge jobs as judge_<state>',
      labelNames: ['state'],
      registers,
      async collect() {
        if (!jobsByState) return;
        for (const [state, count] of Object.entries(await jobsByState()))
          this.set({ state }, count);
      },
    }),
  };
}
