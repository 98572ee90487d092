import { runRecordKey } from '../results/run-record-key.js';
import type { ExportOutcome } from '../results/stored-result.js';
import type { ResultSink } from '../score/result-sink.js';
import type { TraceRun } from '../score/trace-run.js';
import type { ExportBacklog } from './export-backlog.js';
import type { EvaluationExporter } from './otlp-evaluation-exporter.js';
import { scoreToSpan, type EvaluationSpan } from './score-to-span.js';

/** The evaluation spans of one trace run: one per scorer outcome, in the results' order. */
export function evaluationSpansOf(run: TraceRun): EvaluationSpan[] {
  return run.results.flatMap(r =>
    r.outcomes.map(o =>
      scoreToSpan(
        r.trace,
        o,
        r.testCase,
        { startUnixNano: r.startUnixNano, endUnixNano: r.endUnixNano },
        r.kind === 'rule' ? r.testCaseId : undefined,
      ),
    ),
  );
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
      await backlog?.settled(key);
      await report?.(key, { state: 'exported' });
    };
  };
  return {
    name: 'evaluation-spans',
    prepare,
    write: run => prepare(run)(),
  };
}
