import { SpanscoreError } from '../errors/spanscore-error.js';

/** The OTLP/HTTP encodings evaluation spans are exported in (`grpc` is not one). */
export type EvaluationProtocol = 'http/protobuf' | 'http/json';

/**
 * The encoding evaluation spans are exported in: `given` (`export.protocol`), else
 * `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL`, else `OTEL_EXPORTER_OTLP_PROTOCOL`, else `http/protobuf`
 * (the OTLP default). Throws `SS_USAGE` naming any other value.
 */
export function evaluationProtocol(given?: string): EvaluationProtocol {
  const protocol =
    given ??
    process.env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ??
    process.env.OTEL_EXPORTER_OTLP_PROTOCOL ??
    'http/protobuf';
  if (protocol !== 'http/protobuf' && protocol !== 'http/json') {
    throw new SpanscoreError(
      'SS_USAGE',
      `OTLP protocol "${protocol}" is not supported for evaluation spans: use http/protobuf or http/json`,
    );
  }
  return protocol;
}
