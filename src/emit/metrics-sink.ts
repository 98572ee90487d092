import type { Counter } from 'prom-client';
import type { ResultSink } from '../score/result-sink.js';

/** The counters {@link createMetricsSink} feeds (the service's `/metrics`). */
export interface ScoreCounters {
  tracesScored: Counter;
  scores: Counter<'scorer' | 'status' | 'label'>;
}

/**
 * The result sink behind the score metrics: a trace counts as scored once, in the pass that runs
 * its deterministic scorers (the `llm` pass adds only its outcomes); every outcome counts by
 * scorer, status and label.
 */
export function createMetricsSink(metrics: ScoreCounters): ResultSink {
  return {
    name: 'metrics',
    write(run) {
      for (const result of run.results) {
        if (result.outcomes.length === 0) continue;
        if (result.phase !== 'llm') metrics.tracesScored.inc();
        for (const { scorer, result: r } of result.outcomes)
          metrics.scores.inc({
            scorer,
            status: r.status,
            label: r.status === 'scored' ? r.label : '',
          });
      }
    },
  };
}
