import type { EvaluationExporter } from '../../src/emit/otlp-evaluation-exporter.js';
import { SpanscoreError } from '../../src/errors/spanscore-error.js';

/**
 * An evaluation-span exporter standing in for a trace backend that is down (every export
 * rejects with `SS_EXPORT_FAILED`, as the real exporter does) until `up()`; then it keeps the
 * trace ids of what it was sent. `message`: the error's message (a backend's answer may hold any
 * text).
 */
export function switchableExporter(message = 'backend down'): {
  exporter: EvaluationExporter;
  written: Set<string>;
  up: () => void;
} {
  let backendUp = false;
  const written = new Set<string>();
  return {
    exporter: {
      export: spans => {
        if (!backendUp) return Promise.reject(new SpanscoreError('SS_EXPORT_FAILED', message));
        for (const s of spans) written.add(s.traceId);
        return Promise.resolve();
      },
      shutdown: () => Promise.resolve(),
    },
    written,
    up: () => void (backendUp = true),
  };
}
