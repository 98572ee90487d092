import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/redis.js';
import { serveWithKnownTraffic } from '../helpers/results-traffic.js';

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

interface OtlpLogs {
  resourceLogs: Array<{
    scopeLogs: Array<{
      logRecords: Array<{
        eventName?: string;
        traceId: string;
        spanId: string;
        severityText: string;
        attributes: Array<{ key: string; value: { stringValue?: string; doubleValue?: number } }>;
      }>;
    }>;
  }>;
}

/** A local OTLP/HTTP logs endpoint that keeps what it receives. */
async function logsBackend(): Promise<{ url: string; received: OtlpLogs[] }> {
  const received: OtlpLogs[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpLogs);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise(resolve => server.close(resolve)));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/logs`, received };
}

describe('results as OTLP log records (export.logs)', () => {
  it('emits a gen_ai.evaluation.result record per result, joined to the evaluated span', async () => {
    const backend = await logsBackend();
    const { ids, close } = await serveWithKnownTraffic({
      'export.logs': true,
      'export.logsUrl': backend.url,
    });
    closers.push(close);
    const records = () =>
      backend.received.flatMap(r =>
        r.resourceLogs.flatMap(l => l.scopeLogs.flatMap(s => s.logRecords)),
      );
    await waitFor(() => records().length >= 10, 'ten log records', 15_000);
    expect(records()).toHaveLength(10);
    const attr = (r: ReturnType<typeof records>[number], key: string) =>
      r.attributes.find(a => a.key === key)?.value;
    const wrong = records().filter(r => r.traceId === ids['wrong-tool']);
    expect(wrong.map(r => attr(r, 'gen_ai.evaluation.name')?.stringValue).sort()).toEqual([
      'tool_call_accuracy',
      'tool_correctness',
    ]);
    for (const r of wrong) {
      expect(r.eventName).toBe('gen_ai.evaluation.result');
      expect(attr(r, 'gen_ai.evaluation.score.label')?.stringValue).toBe('fail');
      expect(attr(r, 'spanscore.test_case.id')?.stringValue).toBe('wrong-tool');
      expect(attr(r, 'spanscore.evaluated.service.name')?.stringValue).toBe('travel-agent-v2');
      // The evaluated span: the agent's root span of that trace.
      expect(r.spanId).toMatch(/^[0-9a-f]{16}$/);
    }
    expect(new Set(wrong.map(r => r.spanId)).size).toBe(1);
  });

  it('is off by default', async () => {
    const backend = await logsBackend();
    const { close } = await serveWithKnownTraffic(
      {},
      { OTEL_EXPORTER_OTLP_LOGS_ENDPOINT: backend.url },
    );
    await new Promise(r => setTimeout(r, 1500));
    await close();
    expect(backend.received).toEqual([]);
  });
});
