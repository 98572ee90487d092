/** Why a request to a path the receiver does not serve looks like a misconfigured OTLP exporter. */
export interface OtlpPathHint {
  /** What went wrong, for the log's once-a-minute key. */
  key: 'signal-path-twice' | 'bare-host' | 'near-signal-path' | 'grpc';
  /** The fix, in words: which variable to set to what. */
  fix: string;
}

const SIGNALS = ['traces', 'logs', 'metrics'] as const;

/**
 * The likely mistake behind a request the receiver has no route for, when it looks like an OTLP
 * export (a POST, or gRPC); `undefined` otherwise. Pure. The common ones, each with its fix:
 * `OTEL_EXPORTER_OTLP_ENDPOINT` given a signal's path (the exporter appends `/v1/traces` again:
 * `/v1/traces/v1/traces`); a signal's own endpoint (`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, used as
 * it is) given the bare host (`/`); a near miss (`/v1/trace`, `/traces`); an OTLP/gRPC exporter.
 */
export function otlpPathHint(
  method: string,
  path: string,
  contentType: string | undefined,
): OtlpPathHint | undefined {
  if (contentType?.startsWith('application/grpc'))
    return {
      key: 'grpc',
      fix: 'spanscore receives OTLP over HTTP, not gRPC: set OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf and point the exporter at port 4318',
    };
  if (method !== 'POST') return undefined;
  const clean = path.split('?')[0]!.replace(/\/+$/, '') || '/';
  for (const signal of SIGNALS) {
    const own = `/v1/${signal}`;
    const variable = `OTEL_EXPORTER_OTLP_${signal.toUpperCase()}_ENDPOINT`;
    if (clean.endsWith(own) && clean !== own)
      return {
        key: 'signal-path-twice',
        fix: `the exporter added ${own} to an endpoint that already had it: set OTEL_EXPORTER_OTLP_ENDPOINT to the base URL only (http://host:4318, which the exporter completes with ${own}), or give ${variable} the full URL (http://host:4318${own})`,
      };
  }
  if (clean === '/')
    return {
      key: 'bare-host',
      fix: "a signal's own endpoint (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, …_LOGS_ENDPOINT) is used as it is: give it the full URL, http://host:4318/v1/traces (or set OTEL_EXPORTER_OTLP_ENDPOINT to http://host:4318 instead)",
    };
  const near = SIGNALS.find(signal => new RegExp(`/(v1/)?${signal.slice(0, -1)}s?$`).test(clean));
  if (near)
    return {
      key: 'near-signal-path',
      fix: `send OTLP ${near} to /v1/${near} (set OTEL_EXPORTER_OTLP_ENDPOINT to http://host:4318 and the exporter adds it)`,
    };
  return undefined;
}
