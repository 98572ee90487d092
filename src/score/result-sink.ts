import type { TraceRun } from './trace-run.js';

/**
 * Where the per-trace loop hands each {@link TraceRun}: evaluation spans, metrics, a results file,
 * a results store. Sinks are called in order and awaited; one that rejects stops the others and
 * rejects the loop, so the queue retries the trace. Put the sink whose failure must be retried
 * (the evaluation-span export) first: the ones after it then see each run once it is written.
 * A sink sees every run, `not_scored` ones and runs whose results have no outcomes included, and
 * picks what it needs.
 */
export interface ResultSink {
  /** Names the sink in logs and errors. */
  readonly name: string;
  write(run: TraceRun): Promise<void> | void;
  /**
   * For a sink that delivers (see `TraceScorer.scoreThenDeliver`): takes from `run` at once what
   * writing it needs, and returns the write, to run later (outside the scoring slot). The run,
   * with its spans, is then not held while the write waits on a backend. Without it, `write` is
   * called with the run when delivered.
   */
  prepare?(run: TraceRun): () => Promise<void>;
}
