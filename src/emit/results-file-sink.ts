import { createWriteStream, type WriteStream } from 'node:fs';
import { traceResultRows } from '../report/result-row.js';
import type { ResultSink } from '../score/result-sink.js';

/** Options of {@link createResultsFileSink}. */
export interface ResultsFileSinkOptions {
  /** Append one JSON Lines row per outcome to this file. */
  file?: string | undefined;
  /** Log one line per scored test case or rule, through `log`. */
  log?: ((line: string) => void) | undefined;
}

/** A result sink that also closes what it opened. */
export interface ClosableResultSink extends ResultSink {
  close(): Promise<void>;
}

/**
 * The result sink behind `export.resultsFile` and `export.logResults`: each outcome as a report
 * row (the same rows `spanscore score --format jsonl` writes) appended to a file, and a log line
 * per scored test case or rule.
 */
export function createResultsFileSink(options: ResultsFileSinkOptions): ClosableResultSink {
  const file: WriteStream | undefined = options.file
    ? createWriteStream(options.file, { flags: 'a' })
    : undefined;
  const log = options.log;
  return {
    name: 'results-file',
    write(run) {
      if (!file && !log) return;
      for (const result of run.results) {
        if (result.outcomes.length === 0) continue;
        const rows = traceResultRows(result.trace, result.testCaseId, result.outcomes);
        if (file) for (const row of rows) file.write(`${JSON.stringify(row)}\n`);
        if (log) {
          const summary = rows
            .map(r => `${r.scorer}=${r.score ?? r.status}${r.label ? ` ${r.label}` : ''}`)
            .join(', ');
          log(`spanscore: scored trace ${run.traceId} test case ${result.testCaseId}: ${summary}`);
        }
      }
    },
    close: () =>
      file ? new Promise<void>(resolve => file.end(() => resolve())) : Promise.resolve(),
  };
}
