import type { EvaluationExporter } from '../emit/otlp-evaluation-exporter.js';
import type { ResultSink } from '../score/result-sink.js';
import type { TraceResult } from '../score/trace-run.js';

/** What runs: the receiver with workers (`serve`), the receiver alone, or workers alone. */
export interface ServiceRole {
  receiver: boolean;
  workers: boolean;
}

/** A running service. */
export interface Service {
  /** The receiver's `/v1/traces` URL, when it runs. */
  url: string | undefined;
  /** The results page (`/ui/`) on the receiver's port, when it runs. */
  uiUrl: string | undefined;
  /** `/metrics`: on the receiver's port, or a worker's `worker.metricsPort`. */
  metricsUrl: string | undefined;
  driver: 'memory' | 'bullmq';
  /** Stops taking traffic, finishes or hands back work, flushes the exporter, closes Redis. */
  close(): Promise<void>;
  /**
   * Resolves when a part of the service ended by itself (the embedded driver's scoring thread:
   * out of its heap, or an error nothing caught), with what ended it; absent where no part can.
   */
  readonly failed?: Promise<Error>;
}

/** Injectable parts, for the demo and tests. */
export interface ServiceHooks {
  log?: (line: string) => void;
  /**
   * Hears every result with outcomes, after its evaluation spans were exported (at once when
   * export is off).
   */
  onResult?: (result: TraceResult) => void;
  /** Replaces the OTLP evaluation-span exporter. */
  exporter?: EvaluationExporter;
  /** More result sinks, after the built-in ones. */
  sinks?: readonly ResultSink[];
}
