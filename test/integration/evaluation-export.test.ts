import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createEvaluationExporter } from '../../src/emit/otlp-evaluation-exporter.js';
import { scoreToSpan } from '../../src/emit/score-to-span.js';
import { decodeOtlpJson } from '../../src/ingest/decode-otlp-json.js';
import { createOtlpHttpReceiver } from '../../src/ingest/otlp-http-receiver.js';
import type { SpanDigest } from '../../src/ingest/span-digest.js';
import { readTraceFiles } from '../../src/ingest/read-trace-files.js';
import { scoreSuite } from '../../src/score/score-suite.js';
import { loadSuite } from '../../src/suite/load-suite.js';

const ROOT = new URL('../../', import.meta.url).pathname;

/** A local OTLP/HTTP sink that answers with `status` and keeps every JSON body it receives. */
async function otlpSink(status = 200): Promise<{ url: string; bodies: unknown[]; server: Server }> {
  const bodies: unknown[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      bodies.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      res
        .writeHead(status, { 'content-type': 'application/json' })
        .end(status === 200 ? '{}' : '{"code":3,"message":"bad"}');
    });
  });
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`,
    bodies,
    server,
  };
}

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map(s => new Promise(resolve => s.close(resolve))));
});

async function evaluationSpans() {
  const suite = await loadSuite(join(ROOT, 'config/suites/weather-agent.yaml'));
  const { spans } = await readTraceFiles([
    join(ROOT, 'test/fixtures/otlp/captured-vercel-ai-sdk-v5.otlp.json'),
  ]);
  const run = await scoreSuite(spans, suite);
  const scored = run.scored.find(s => s.testCaseId === 'weather-paris')!;
  const time = {
    startUnixNano: 1_767_225_600_000_000_000n,
    endUnixNano: 1_767_225_600_002_000_000n,
  };
  return {
    scored,
    spans: scored.outcomes.map(o =>
      scoreToSpan(scored.trace, o, suite.byId.get('weather-paris')!.testCase, time),
    ),
  };
}

describe('exporting evaluation spans over OTLP/HTTP', () => {
  it('sends OTLP/protobuf by default (the OTLP/HTTP default), the same spans as in JSON', async () => {
    const received: SpanDigest[] = [];
    const types: string[] = [];
    const receiver = createOtlpHttpReceiver({
      sink: { accept: s => (received.push(...s), Promise.resolve()) },
    });
    receiver.addHook('onRequest', (req, _reply, done) => {
      types.push(String(req.headers['content-type']));
      done();
    });
    await receiver.listen({ port: 0, host: '127.0.0.1' });
    const { spans } = await evaluationSpans();
    const exporter = createEvaluationExporter({
      url: `http://127.0.0.1:${(receiver.server.address() as AddressInfo).port}/v1/traces`,
    });
    await exporter.export(spans);
    await exporter.shutdown();
    await receiver.close();
    expect(types).toEqual(['application/x-protobuf']);
    expect(received.map(s => [s.spanId, s.parentSpanId, s.name]).sort()).toEqual(
      spans.map(s => [s.spanId, s.parentSpanId, s.name]).sort(),
    );
    expect(received[0]!.attributes['gen_ai.evaluation.name']).toBe(
      spans[0]!.attributes['gen_ai.evaluation.name'],
    );
  });

  it('refuses an OTLP protocol it cannot send, naming it', () => {
    expect(() => createEvaluationExporter({ protocol: 'grpc' as 'http/json' })).toThrow(
      /OTLP protocol "grpc" is not supported/,
    );
  });

  it('writes one span per scorer into the evaluated trace, under its root, with a link and the result event', async () => {
    const sink = await otlpSink();
    servers.push(sink.server);
    const { scored, spans } = await evaluationSpans();
    const exporter = createEvaluationExporter({ url: sink.url, protocol: 'http/json' });
    await exporter.export(spans);
    await exporter.shutdown();

    const received = decodeOtlpJson(sink.bodies[0]).spans;
    expect(received.map(s => s.name).sort()).toEqual([
      'evaluation contains',
      'evaluation no_tool_errors',
      'evaluation tool_call_accuracy',
      'evaluation tool_correctness',
      'evaluation tool_trajectory',
    ]);
    for (const span of received) {
      expect(span.traceId).toBe(scored.trace.traceId);
      expect(span.parentSpanId).toBe(scored.trace.root!.spanId);
      expect(span.serviceName).toBe('spanscore');
      expect(span.attributes['spanscore.tools_used']).toEqual(['weather']);
      expect(span.attributes['spanscore.test_case.id']).toBe('weather-paris');
      expect(span.events.map(e => e.name)).toEqual(['gen_ai.evaluation.result']);
    }
    const accuracy = received.find(s => s.name === 'evaluation tool_call_accuracy')!;
    expect(accuracy.attributes).toMatchObject({
      'gen_ai.evaluation.name': 'tool_call_accuracy',
      'gen_ai.evaluation.score.value': 1,
      'gen_ai.evaluation.score.label': 'pass',
      'spanscore.scorer.kind': 'deterministic',
    });
    const raw = sink.bodies[0] as {
      resourceSpans: Array<{
        scopeSpans: Array<{ spans: Array<{ links: Array<{ traceId: string; spanId: string }> }> }>;
      }>;
    };
    expect(raw.resourceSpans[0]!.scopeSpans[0]!.spans[0]!.links[0]).toMatchObject({
      traceId: scored.trace.traceId,
      spanId: scored.trace.root!.spanId,
    });
  });

  it('a retried export writes the same span ids, not new spans', async () => {
    const sink = await otlpSink();
    servers.push(sink.server);
    const exporter = createEvaluationExporter({ url: sink.url, protocol: 'http/json' });
    await exporter.export((await evaluationSpans()).spans);
    await exporter.export((await evaluationSpans()).spans);
    await exporter.shutdown();
    const ids = sink.bodies.map(b =>
      decodeOtlpJson(b)
        .spans.map(s => s.spanId)
        .sort(),
    );
    expect(ids[0]).toHaveLength(5);
    expect(ids[1]).toEqual(ids[0]);
  });

  it('rejects with SS_EXPORT_FAILED when the backend refuses, so the job is retried', async () => {
    const sink = await otlpSink(400);
    servers.push(sink.server);
    const exporter = createEvaluationExporter({
      url: sink.url,
      protocol: 'http/json',
      timeoutMillis: 2000,
    });
    await expect(exporter.export((await evaluationSpans()).spans)).rejects.toMatchObject({
      code: 'SS_EXPORT_FAILED',
      category: 'upstream',
    });
    await exporter.shutdown();
  });
});
