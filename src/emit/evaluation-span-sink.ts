import type { ResultSink } from '../score/result-sink.js';
import type { TraceRun } from '../score/trace-run.js';
import type { ExportBacklog } from './export-backlog.js';
import type { EvaluationExporter } from './otlp-evaluation-exporter.js';
import { scoreToSpan, type EvaluationSpan } from './score-to-span.js';

/** The evaluation spans of one trace run: one per scorer outcome, in the results' order. */
export function evaluationSpansOf(run: TraceRun): EvaluationSpan[] {
  return run.results.flatMap(r =>
    r.outcomes.map(o =>
      scoreToSpan(r.trace, o, r.testCase, {
        startUnixNano: r.startUnixNano,
        endUnixNano: r.endUnixNano,
      }),
    ),
  );
}

/**
 * The result sink that writes every outcome back into the evaluated trace as an evaluation span,
 * all of a run's spans in one `export` call. An export failure rejects (`SS_EXPORT_FAILED`,
 * retryable), so put this sink first: the queue retries the trace and the sinks after it never
 * see a run whose spans were not written. With a `backlog`, a failing trace is kept there until an
 * export of it succeeds.
 */
export function createEvaluationSpanSink(
  exporter: EvaluationExporter,
  backlog?: ExportBacklog,
): ResultSink {
  return {
    name: 'evaluation-spans',
    async write(run) {
      const spans = evaluationSpansOf(run);
      if (spans.length === 0) return;
      try {
        await exporter.export(spans);
      } catch (error) {
        await backlog?.failed(run.traceId);
        throw error;
      }
      await backlog?.settled(run.traceId);
    },
  };
}
