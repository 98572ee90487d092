import { runRecordKey } from '../results/run-record-key.js';
import type { ExportOutcome } from '../results/stored-result.js';
import { outcomeCount } from '../score/outcome-count.js';
import type { ResultSink } from '../score/result-sink.js';
import type { TraceRun } from '../score/trace-run.js';
import type { ExportBacklog } from './export-backlog.js';
import type { EvaluationExporter } from './otlp-evaluation-exporter.js';
import {
  scoreToSpanOf,
  traceFacts,
  type EvaluationSpan,
  type TraceFacts,
} from './score-to-span.js';

/** The evaluation spans of one trace run: one per scorer outcome, in the results' order. */
export function evaluationSpansOf(run: TraceRun): EvaluationSpan[] {
  const spans = new Array<EvaluationSpan>(outcomeCount(run));
  let n = 0;
  // A run's results are mostly of one trace: its facts are worked out once for all of them.
  let facts: TraceFacts | undefined;
  for (const r of run.results) {
    if (r.outcomes.length === 0) continue;
    if (facts?.trace !== r.trace) facts = traceFacts(r.trace);
    const time = { startUnixNano: r.startUnixNano, endUnixNano: r.endUnixNano };
    const rule = r.kind === 'rule' ? r.testCaseId : undefined;
    for (const o of r.outcomes) spans[n++] = scoreToSpanOf(facts, o, r.testCase, time, rule);
  }
  return spans;
}

/** Who hears how each export went. */
export interface EvaluationSpanSinkOptions {
  /** A failing trace is kept here until an export of it succeeds. */
  backlog?: ExportBacklog;
  /** Each attempt's outcome, for the trace's run record (`ResultsStore.recordExport`). */
  report?: (traceId: string, outcome: ExportOutcome) => Promise<void>;
}

/**
 * The result sink that writes every outcome back into the evaluated trace as an evaluation span,
 * all of a run's spans in one `export` call. An export failure rejects (`SS_EXPORT_FAILED`,
 * retryable): the queue retries the trace's export, and the sinks after this one (hooks waiting
 * for written spans) see the run once its spans are written. The results store is written before
 * this sink runs, so results show while the export waits.
 */
export function createEvaluationSpanSink(
  exporter: EvaluationExporter,
  options: EvaluationSpanSinkOptions = {},
): ResultSink {
  const { backlog, report } = options;
  const prepare = (run: TraceRun): (() => Promise<void>) => {
    const spans = evaluationSpansOf(run);
    if (spans.length === 0) return () => Promise.resolve();
    // A session's export is reported on its session's record.
    const key = runRecordKey(run);
    return async () => {
      try {
        await exporter.export(spans);
      } catch (error) {
        await backlog?.failed(key);
        await report?.(key, {
          state: 'pending',
          error: error instanceof Error ? error.message : String(error),
        });
        throw error;
      }
      // The spans are written: the backlog's bookkeeping failing (Redis away right then) must not
      // fail the delivery, whose job would then end failed, or be retried and export them again.
      // The backlog removes it later (see `ExportBacklog.settled`).
      await backlog?.settled(key).catch(() => undefined);
      await report?.(key, { state: 'exported' });
    };
  };
  return {
    name: 'evaluation-spans',
    prepare,
    write: run => prepare(run)(),
  };
}
