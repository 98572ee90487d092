/**
 * A local OTLP/HTTP JSON receiver for captures that export over the wire: an MCP server in
 * another process (`@opentelemetry/exporter-trace-otlp-http`), or an app sending traces and logs
 * (the OpenTelemetry GenAI instrumentations write messages as log records). It keeps each request
 * body as sent, by signal, and answers with an empty success; `/v1/metrics` is accepted and
 * dropped, as an app sending every signal to one endpoint expects.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readBody } from '../test/helpers/openai-compatible-server.js';
import type { OtlpJsonLogsRequest, OtlpJsonRequest } from './write-fixture.js';

export interface OtlpSink {
  /** The traces endpoint, for `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`. */
  url: string;
  /** The base endpoint, for `OTEL_EXPORTER_OTLP_ENDPOINT` (`/v1/traces`, `/v1/logs` below it). */
  baseUrl: string;
  requests: OtlpJsonRequest[];
  logRequests: OtlpJsonLogsRequest[];
  /** Protobuf bodies posted below `/protobuf` (`/protobuf/v1/traces`, `/protobuf/v1/logs`), as sent. */
  protobuf: { traces: Buffer[]; logs: Buffer[] };
  /** The number of spans received so far. */
  spanCount(): number;
  /** The number of log records received so far. */
  logCount(): number;
  close(): Promise<void>;
}

export async function startOtlpSink(): Promise<OtlpSink> {
  const requests: OtlpJsonRequest[] = [];
  const logRequests: OtlpJsonLogsRequest[] = [];
  const protobuf = { traces: [] as Buffer[], logs: [] as Buffer[] };
  const server = createServer((req, res) => {
    if (req.method === 'POST' && req.url?.startsWith('/protobuf/v1/')) {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const signal = req.url === '/protobuf/v1/logs' ? protobuf.logs : protobuf.traces;
        signal.push(Buffer.concat(chunks));
        res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
      });
      return;
    }
    void readBody(req).then(body => {
      const signal = req.method === 'POST' ? req.url : undefined;
      if (signal !== '/v1/traces' && signal !== '/v1/logs' && signal !== '/v1/metrics') {
        res.writeHead(404).end();
        return;
      }
      if (!String(req.headers['content-type']).startsWith('application/json')) {
        res.writeHead(415).end();
        return;
      }
      if (signal === '/v1/traces') requests.push(JSON.parse(body) as OtlpJsonRequest);
      else if (signal === '/v1/logs') logRequests.push(JSON.parse(body) as OtlpJsonLogsRequest);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${baseUrl}/v1/traces`,
    baseUrl,
    requests,
    logRequests,
    protobuf,
    spanCount: () =>
      requests
        .flatMap(r => r.resourceSpans)
        .flatMap(r => r.scopeSpans)
        .reduce((n, s) => n + s.spans.length, 0),
    logCount: () =>
      logRequests
        .flatMap(r => r.resourceLogs)
        .flatMap(r => r.scopeLogs)
        .reduce((n, s) => n + s.logRecords.length, 0),
    close: () => new Promise<void>(resolve => server.close(() => resolve())),
  };
}
