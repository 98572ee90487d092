/**
 * A local OTLP/HTTP JSON receiver for captures whose spans come from another process (an MCP
 * server exporting through `@opentelemetry/exporter-trace-otlp-http`): it keeps each request body
 * as sent and answers with an empty success.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readBody } from '../test/helpers/openai-compatible-server.js';
import type { OtlpJsonRequest } from './write-fixture.js';

export interface OtlpSink {
  /** The traces endpoint, for `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`. */
  url: string;
  requests: OtlpJsonRequest[];
  /** The number of spans received so far. */
  spanCount(): number;
  close(): Promise<void>;
}

export async function startOtlpSink(): Promise<OtlpSink> {
  const requests: OtlpJsonRequest[] = [];
  const server = createServer((req, res) => {
    void readBody(req).then(body => {
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        res.writeHead(404).end();
        return;
      }
      if (!String(req.headers['content-type']).startsWith('application/json')) {
        res.writeHead(415).end();
        return;
      }
      requests.push(JSON.parse(body) as OtlpJsonRequest);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`,
    requests,
    spanCount: () =>
      requests
        .flatMap(r => r.resourceSpans)
        .flatMap(r => r.scopeSpans)
        .reduce((n, s) => n + s.spans.length, 0),
    close: () => new Promise<void>(resolve => server.close(() => resolve())),
  };
}
