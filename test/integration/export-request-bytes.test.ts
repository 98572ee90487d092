import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { withBatching } from '../../src/emit/batching-exporter.js';
import { createEvaluationExporter } from '../../src/emit/otlp-evaluation-exporter.js';
import type { EvaluationSpan } from '../../src/emit/score-to-span.js';
import type { EvaluationProtocol } from '../../src/emit/evaluation-protocol.js';
import { decodeOtlpJson } from '../../src/ingest/decode-otlp-json.js';
import { decodeOtlpProtobuf } from '../../src/ingest/decode-otlp-protobuf.js';
import { RESULT_BOUNDS } from '../../src/results/result-bounds.js';

/**
 * A local OTLP/HTTP sink recording each request's body size and the span ids in it (decoded
 * with spanscore's own decoders, within limits wide enough for the test's lists).
 */
async function recordingSink(): Promise<{
  url: string;
  sizes: number[];
  spanIds: string[];
  server: Server;
}> {
  const sizes: number[] = [];
  const spanIds: string[] = [];
  const limits = { maxSpans: 100_000, maxItems: 100_000_000, maxRejectedDetails: 20 };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      sizes.push(body.length);
      const json = String(req.headers['content-type']).includes('json');
      const decoded = json
        ? decodeOtlpJson(JSON.parse(body.toString('utf8')), limits)
        : decodeOtlpProtobuf(body, limits);
      expect(decoded.rejectedCount).toBe(0);
      for (const s of decoded.spans) spanIds.push(s.spanId);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`,
    sizes,
    spanIds,
    server,
  };
}

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map(s => new Promise(resolve => s.close(resolve))));
});

const hex = (n: number, digits: number): string => n.toString(16).padStart(digits, '0');

/**
 * An evaluation span as large as `RESULT_BOUNDS` lets a hostile trace make one: an explanation
 * of `maxTextChars` characters of `char` (on the span and its event), and tools used and the
 * tool sequence of `maxListItems` names filling `maxListChars`. Each trace's spans are its own
 * (a new trace id each), so the encoder copies nothing from one span to the next.
 */
function largeSpan(trace: number, scorer: number, char: string): EvaluationSpan {
  const { maxTextChars, maxListItems, maxListChars } = RESULT_BOUNDS;
  const explanation = char.repeat(maxTextChars);
  const nameChars = Math.floor(maxListChars / maxListItems);
  const names = Array.from({ length: maxListItems }, (_, i) =>
    `t${trace}-${i}-`.padEnd(nameChars, 'x').slice(0, nameChars),
  );
  const event = {
    'gen_ai.evaluation.name': `scorer${scorer}`,
    'gen_ai.evaluation.score.value': 0.5,
    'gen_ai.evaluation.score.label': 'fail',
    'gen_ai.evaluation.explanation': explanation,
  };
  const traceId = hex(trace + 1, 32);
  return {
    traceId,
    spanId: hex(trace * 16 + scorer + 1, 16),
    parentSpanId: hex(1, 16),
    name: `evaluation scorer${scorer}`,
    startTimeUnixNano: 1_767_225_600_000_000_000n,
    endTimeUnixNano: 1_767_225_600_002_000_000n,
    attributes: {
      ...event,
      'spanscore.tools_used': names,
      'spanscore.tool_sequence': [...names].reverse(),
    },
    link: { traceId, spanId: hex(1, 16) },
    turnLinks: [],
    event: {
      name: 'gen_ai.evaluation.result',
      timeUnixNano: 1_767_225_600_002_000_000n,
      attributes: event,
    },
    statusCode: 0,
    statusMessage: '',
  };
}

/**
 * Exports `traces` traces of 3 large spans each, one `export` call a trace, all at once, through
 * the batcher and the OpenTelemetry OTLP/HTTP exporter, to the recording sink.
 */
async function exportAll(
  protocol: EvaluationProtocol,
  maxBytes: number,
  traces: number,
  char: string,
): Promise<{ sizes: number[]; spanIds: string[]; sent: string[] }> {
  const sink = await recordingSink();
  servers.push(sink.server);
  const exporter = withBatching(
    createEvaluationExporter({ url: sink.url, protocol, maxRequestBytes: maxBytes }),
    { maxSpans: 1024, maxDelayMs: 10 },
  );
  const calls = Array.from({ length: traces }, (_, t) => [0, 1, 2].map(s => largeSpan(t, s, char)));
  await Promise.all(calls.map(spans => exporter.export(spans)));
  await exporter.shutdown();
  return { sizes: sink.sizes, spanIds: sink.spanIds, sent: calls.flat().map(s => s.spanId) };
}

describe('export requests within export.maxBatchBytes', () => {
  it('sends 120 large protobuf spans in requests each within the bound, none lost', async () => {
    const maxBytes = 256 * 1024;
    // '€': 3 UTF-8 bytes a character, the most a character outside a surrogate pair takes
    const { sizes, spanIds, sent } = await exportAll('http/protobuf', maxBytes, 40, '€');
    expect(spanIds.sort()).toEqual(sent.sort());
    expect(sizes.length).toBeGreaterThan(1);
    for (const size of sizes) expect(size).toBeLessThanOrEqual(maxBytes);
    // Filled, not split needlessly: each request but the last holds more than half the bound.
    for (const size of sizes.slice(0, -1)) expect(size).toBeGreaterThan(maxBytes / 2);
  });

  it('sends 60 large JSON spans whose text is all escapes in requests within the bound', async () => {
    const maxBytes = 512 * 1024;
    // a control character: JSON writes each as \u0001, six bytes
    const { sizes, spanIds, sent } = await exportAll('http/json', maxBytes, 20, '\u0001');
    expect(spanIds.sort()).toEqual(sent.sort());
    expect(sizes.length).toBeGreaterThan(1);
    for (const size of sizes) expect(size).toBeLessThanOrEqual(maxBytes);
  });
});
