import { describe, expect, it } from 'vitest';
import { otlpPathHint } from './otlp-path-hint.js';

describe('otlpPathHint', () => {
  it.each([
    ['POST', '/v1/traces/v1/traces', undefined, 'signal-path-twice'],
    ['POST', '/v1/logs/v1/logs', 'application/x-protobuf', 'signal-path-twice'],
    ['POST', '/otlp/v1/metrics', 'application/json', 'signal-path-twice'],
    ['POST', '/', 'application/x-protobuf', 'bare-host'],
    ['POST', '/v1/trace', 'application/json', 'near-signal-path'],
    ['POST', '/traces', 'application/json', 'near-signal-path'],
    [
      'POST',
      '/opentelemetry.proto.collector.trace.v1.TraceService/Export',
      'application/grpc',
      'grpc',
    ],
  ])('%s %s (%s): %s', (method, path, type, key) => {
    expect(otlpPathHint(method, path, type)?.key).toBe(key);
  });

  it('names the fix', () => {
    expect(otlpPathHint('POST', '/v1/traces/v1/traces', undefined)?.fix).toBe(
      'the exporter added /v1/traces to an endpoint that already had it: set OTEL_EXPORTER_OTLP_ENDPOINT to the base URL only (http://host:4318, which the exporter completes with /v1/traces), or give OTEL_EXPORTER_OTLP_TRACES_ENDPOINT the full URL (http://host:4318/v1/traces)',
    );
  });

  it('leaves other requests alone', () => {
    expect(otlpPathHint('GET', '/favicon.ico', undefined)).toBeUndefined();
    expect(otlpPathHint('POST', '/api/v2/spans', 'application/json')).toBeUndefined();
  });
});
