/**
 * What a hostile trace makes spanscore write into the user's tracing backend: a live `serve`
 * (memory driver, the real OTLP/protobuf exporter) exports to a real OTLP/HTTP backend that, as
 * many do, refuses requests over 4 MiB. A trace of 1,000 failing tool calls, each named by 1,024
 * characters (an 18 KB gzip request), arrives with a small trace of another service in the same
 * request, so their evaluation spans share an export batch. Before the bounds, the hostile
 * trace's three spans each repeated a 1.2 MB explanation and two 1 MB tool lists: one 8.6 MB
 * export, refused with 413, and every trace of the batch waited for retries that failed the same.
 */
import { PassThrough } from 'node:stream';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { RESULT_BOUNDS } from '../../src/results/result-bounds.js';
import { createOtlpHttpReceiver } from '../../src/ingest/otlp-http-receiver.js';
import type { SpanDigest } from '../../src/ingest/span-digest.js';
import { startLiveService } from '../helpers/live-service.js';
import { gzipRequest, longFailingTrace, longToolName } from '../helpers/long-failing-trace.js';
import { spanId, traceId, type SpanInput } from '../helpers/otlp-json-builder.js';
import { waitFor } from '../helpers/redis.js';

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

/** The request size the backend takes, as Tempo's and Jaeger's gRPC receivers default to. */
const BACKEND_MAX_BYTES = 4 * 1024 * 1024;
const CALLS = 1000;
const NAME_CHARS = 1024;

/** A real OTLP receiver as the backend, refusing bodies past BACKEND_MAX_BYTES (413). */
async function backend(): Promise<{ url: string; spans: SpanDigest[]; bytes: number[] }> {
  const spans: SpanDigest[] = [];
  const bytes: number[] = [];
  const app = createOtlpHttpReceiver({
    maxBodyBytes: BACKEND_MAX_BYTES,
    sink: { accept: s => (spans.push(...s), Promise.resolve()) },
  });
  // Each request's body bytes as they arrive, refused or not.
  app.addHook('preParsing', (_req, _reply, payload, done) => {
    const i = bytes.push(0) - 1;
    const counted = new PassThrough();
    counted.on('data', (chunk: Buffer) => (bytes[i]! += chunk.length));
    done(null, payload.pipe(counted));
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  closers.push(() => app.close());
  const { port } = app.server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/v1/traces`, spans, bytes };
}

/** Every string an attribute holds, list items one by one. */
function strings(span: SpanDigest): string[] {
  return Object.values(span.attributes).flatMap(v =>
    Array.isArray(v) ? v.filter(x => typeof x === 'string') : typeof v === 'string' ? [v] : [],
  );
}

describe('evaluation spans of a hostile trace', () => {
  it('are bounded, say what was cut, and leave the batch it shares with other traces exportable', async () => {
    const sink = await backend();
    const service = await startLiveService(
      'memory',
      { 'export.url': sink.url, 'export.logResults': false },
      closers,
    );
    const hostile = traceId(1);
    const small = traceId(2);
    const spans: SpanInput[] = [
      ...longFailingTrace(1, CALLS, NAME_CHARS),
      {
        traceId: small,
        spanId: spanId(2, 1),
        name: 'invoke_agent',
        startMs: 0,
        endMs: 100,
        service: 'small-agent',
      },
      {
        traceId: small,
        spanId: spanId(2, 2),
        parentSpanId: spanId(2, 1),
        name: 'execute_tool get_weather',
        startMs: 1,
        endMs: 2,
        service: 'small-agent',
        attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'get_weather' },
      },
    ];
    const response = await fetch(`${service.origin}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: gzipRequest(spans),
    });
    expect(response.status).toBe(200);

    // Both traces' three tool-health spans reach the backend.
    await waitFor(
      () => sink.spans.filter(s => s.name.startsWith('evaluation ')).length >= 6,
      "both traces' evaluation spans at the backend",
      20_000,
    );
    const evaluations = sink.spans.filter(s => s.name.startsWith('evaluation '));
    expect(new Set(evaluations.map(s => s.traceId))).toEqual(new Set([hostile, small]));
    // No request the backend refused; each far under its limit.
    expect(Math.max(...sink.bytes)).toBeLessThan(BACKEND_MAX_BYTES / 16);

    const { maxTextChars, maxListChars } = RESULT_BOUNDS;
    for (const span of evaluations)
      for (const text of strings(span)) expect(text.length).toBeLessThanOrEqual(maxTextChars);
    const kept = Math.floor(maxListChars / NAME_CHARS);
    const errors = evaluations.find(s => s.traceId === hostile && s.name.endsWith('tool_errors'))!;
    expect(errors.attributes['spanscore.tool_sequence']).toEqual(
      Array.from({ length: kept }, (_, i) => longToolName(i, NAME_CHARS)),
    );
    const explanation = errors.attributes['gen_ai.evaluation.explanation'] as string;
    expect(explanation).toHaveLength(maxTextChars);
    expect(explanation.endsWith('…')).toBe(true);
    const cut = errors.attributes['spanscore.evaluation.cut_attributes'] as string[];
    expect(cut).toContain(`spanscore.tools_used: ${kept} of ${CALLS} items`);
    expect(cut).toContain(`spanscore.tool_sequence: ${kept} of ${CALLS} items`);
    expect(cut.find(c => c.startsWith('gen_ai.evaluation.explanation: '))).toMatch(
      new RegExp(`^gen_ai\\.evaluation\\.explanation: ${maxTextChars} of \\d+ characters$`),
    );
    // The explanation's event repeats it as cut.
    expect(errors.events[0]!.attributes['gen_ai.evaluation.explanation']).toBe(explanation);
    // The small trace's spans are whole, and say nothing was cut.
    for (const span of evaluations.filter(s => s.traceId === small)) {
      expect(span.attributes['spanscore.tool_sequence']).toEqual(['get_weather']);
      expect(span.attributes['spanscore.evaluation.cut_attributes']).toBeUndefined();
    }
  });
});
