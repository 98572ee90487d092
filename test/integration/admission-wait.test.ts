import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { startService } from '../../src/server/start-service.js';
import { sdkAgentTrace } from '../helpers/sdk-spans.js';
import { waitFor } from '../helpers/redis.js';

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

/** A labelled sample of an exposition (0 when absent). */
const sample = (text: string, series: string): number =>
  Number(
    new RegExp(`^${series.replace(/[{}"=]/g, m => `\\${m}`)} (\\S+)$`, 'm').exec(text)?.[1] ?? 0,
  );

/** Exports `spans` with the OTel SDK's OTLP/protobuf exporter; resolves with its result. */
const exportWith = (exporter: OTLPTraceExporter, spans: ReadableSpan[]): Promise<ExportResult> =>
  new Promise(resolve => exporter.export(spans, resolve));

/** `serve`'s service with the memory driver, a 20-span buffer and traces scored `settleMs` after. */
async function smallBuffer(settleMs = 1500) {
  const service = await startService(
    await loadConfig({
      env: {},
      overrides: {
        'queue.driver': 'memory',
        'receiver.port': 0,
        'receiver.host': '127.0.0.1',
        // 20 spans: the first trace (16) leaves no room for the second (5) until it is scored,
        // `settleMs` after its last span; a quarter of 20 (5 spans) may wait.
        'assembly.maxBufferedSpans': 20,
        'assembly.settleMs': settleMs,
        'assembly.admissionWaitMs': 5000,
        'export.logResults': false,
      },
    }),
    { receiver: true, workers: true },
    { log: () => undefined },
  );
  closers.push(() => service.close());
  return service;
}

describe('the memory driver holds a request while its buffer is full (assembly.admissionWaitMs)', () => {
  it('answers an OTel SDK exporter 200 once room frees, with no 429, and scores both traces', async () => {
    const service = await smallBuffer();
    const metricsUrl = service.url!.replace('/v1/traces', '/metrics');
    const scrape = async () => (await fetch(metricsUrl)).text();
    const exporter = new OTLPTraceExporter({ url: service.url!, timeoutMillis: 10_000 });
    closers.push(() => exporter.shutdown());

    const first = sdkAgentTrace(
      'a',
      Array.from({ length: 15 }, (_, i) => `tool_${i}`),
    );
    const second = sdkAgentTrace('b', ['get_weather', 'search', 'book', 'pay']);
    expect([first.length, second.length]).toEqual([16, 5]);
    expect((await exportWith(exporter, first)).code).toBe(ExportResultCode.SUCCESS);

    let secondDone: ExportResult | undefined;
    const secondExport = exportWith(exporter, second).then(r => (secondDone = r));
    await waitFor(
      async () => sample(await scrape(), 'spanscore_jobs{state="requests_waiting"}') === 1,
      'the second request waiting at the door',
    );
    expect(secondDone).toBeUndefined();

    expect((await secondExport).code).toBe(ExportResultCode.SUCCESS);
    const after = await scrape();
    expect(sample(after, 'spanscore_jobs{state="requests_waiting"}')).toBe(0);
    expect(sample(after, 'spanscore_requests_rejected_total{reason="saturated"}')).toBe(0);
    expect(sample(after, 'spanscore_spans_backpressure_total{reason="saturated"}')).toBe(0);
    await waitFor(
      async () => sample(await scrape(), 'spanscore_traces_scored_total') === 2,
      'both traces scored',
    );
  }, 30_000);

  it('answers a request still waiting at shutdown 503, to be sent elsewhere', async () => {
    const service = await smallBuffer();
    const post = (spans: ReadableSpan[]) =>
      fetch(service.url!, {
        method: 'POST',
        headers: { 'content-type': 'application/x-protobuf' },
        body: ProtobufTraceSerializer.serializeRequest(spans)!,
      });
    const first = sdkAgentTrace(
      'a',
      Array.from({ length: 15 }, (_, i) => `tool_${i}`),
    );
    expect((await post(first)).status).toBe(200);
    const waiting = post(sdkAgentTrace('b', ['get_weather', 'search', 'book', 'pay']));
    const metricsUrl = service.url!.replace('/v1/traces', '/metrics');
    await waitFor(
      async () =>
        sample(
          await (await fetch(metricsUrl)).text(),
          'spanscore_jobs{state="requests_waiting"}',
        ) === 1,
      'the second request waiting at the door',
    );
    const closed = service.close();
    const answer = await waiting;
    expect(answer.status).toBe(503);
    expect(answer.headers.get('retry-after')).toBe('5');
    await closed;
  }, 30_000);

  it('lets a waiting request go when its sender closes the connection, keeping none of its spans', async () => {
    // Traces scored 20 s after their last span: room frees only after the test.
    const service = await smallBuffer(20_000);
    const metricsUrl = service.url!.replace('/v1/traces', '/metrics');
    const scrape = async () => (await fetch(metricsUrl)).text();
    const post = (spans: ReadableSpan[], signal?: AbortSignal) =>
      fetch(service.url!, {
        method: 'POST',
        headers: { 'content-type': 'application/x-protobuf' },
        body: ProtobufTraceSerializer.serializeRequest(spans)!,
        ...(signal && { signal }),
      });
    const first = sdkAgentTrace(
      'a',
      Array.from({ length: 15 }, (_, i) => `tool_${i}`),
    );
    expect((await post(first)).status).toBe(200);
    const sender = new AbortController();
    const waiting = post(
      sdkAgentTrace('b', ['get_weather', 'search', 'book', 'pay']),
      sender.signal,
    );
    await waitFor(
      async () => sample(await scrape(), 'spanscore_jobs{state="requests_waiting"}') === 1,
      'the second request waiting at the door',
    );
    sender.abort(); // the client gives up: its connection closes
    await expect(waiting).rejects.toThrow();
    await waitFor(
      async () =>
        sample(await scrape(), 'spanscore_spans_backpressure_total{reason="sender_gone"}') === 5,
      'the waiting request let go, its 5 spans counted as not kept',
    );
    const after = await scrape();
    expect(sample(after, 'spanscore_jobs{state="requests_waiting"}')).toBe(0);
    // Not let in: the buffer still holds the first trace alone.
    expect(sample(after, 'spanscore_jobs{state="buffered"}')).toBe(1);
  }, 30_000);
});
