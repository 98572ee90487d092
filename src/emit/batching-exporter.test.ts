import { describe, expect, it } from 'vitest';
import { withBatching } from './batching-exporter.js';
import type { EvaluationExporter } from './otlp-evaluation-exporter.js';
import type { EvaluationSpan } from './score-to-span.js';

/** No byte bound: the cases of the span count and delay. */
const UNBOUNDED = { maxBytes: Infinity, spanBytes: () => 0 };

const span = (id: string): EvaluationSpan => ({ spanId: id }) as unknown as EvaluationSpan;

function recording(fail?: (ids: string[]) => boolean) {
  const requests: string[][] = [];
  let shutdowns = 0;
  const exporter: EvaluationExporter = {
    export: spans => {
      const ids = spans.map(s => s.spanId);
      requests.push(ids);
      return fail?.(ids)
        ? Promise.reject(new Error(`refused ${ids.join(',')}`))
        : Promise.resolve();
    },
    shutdown: () => (shutdowns++, Promise.resolve()),
  };
  return { exporter, requests, shutdowns: () => shutdowns };
}

describe('withBatching', () => {
  it('sends concurrent exports as one request and resolves each call', async () => {
    const inner = recording();
    const batching = withBatching(inner.exporter, { maxSpans: 1024, maxDelayMs: 20, ...UNBOUNDED });
    await Promise.all([
      batching.export([span('a'), span('b')]),
      batching.export([span('c')]),
      batching.export([]),
    ]);
    expect(inner.requests).toEqual([['a', 'b', 'c']]);
  });

  it('flushes at maxSpans without waiting, and splits later calls into the next batch', async () => {
    const inner = recording();
    const batching = withBatching(inner.exporter, {
      maxSpans: 2,
      maxDelayMs: 10_000,
      ...UNBOUNDED,
    });
    const first = batching.export([span('a'), span('b')]);
    expect(inner.requests).toEqual([['a', 'b']]); // sent synchronously, no timer
    await first;
    const second = batching.export([span('c')]);
    await batching.shutdown(); // sends what is pending
    await second;
    expect(inner.requests).toEqual([['a', 'b'], ['c']]);
  });

  it('rejects exactly the calls whose spans were in the failed request', async () => {
    const inner = recording(ids => ids.includes('bad'));
    const batching = withBatching(inner.exporter, { maxSpans: 2, maxDelayMs: 10, ...UNBOUNDED });
    const failed = [batching.export([span('bad')]), batching.export([span('x')])];
    const ok = batching.export([span('y')]);
    const results = await Promise.allSettled([...failed, ok]);
    expect(results.map(r => r.status)).toEqual(['rejected', 'rejected', 'fulfilled']);
    expect((results[0] as PromiseRejectedResult).reason).toMatchObject({
      message: 'refused bad,x',
    });
  });

  it('shutdown waits for requests in flight and shuts the inner exporter down once', async () => {
    let release: () => void = () => undefined;
    const requests: number[] = [];
    let shutdowns = 0;
    const batching = withBatching(
      {
        export: spans => (requests.push(spans.length), new Promise<void>(r => (release = r))),
        shutdown: () => (shutdowns++, Promise.resolve()),
      },
      { maxSpans: 1, maxDelayMs: 10, ...UNBOUNDED },
    );
    const call = batching.export([span('a')]);
    let done = false;
    const closing = batching.shutdown().then(() => (done = true));
    await new Promise(r => setTimeout(r, 20));
    expect(done).toBe(false);
    release();
    await Promise.all([call, closing]);
    expect(shutdowns).toBe(1);
    expect(requests).toEqual([1]);
  });

  describe('maxBytes', () => {
    /** Each span's size is the number in its id. */
    const sized = { maxBytes: 1024 + 100, spanBytes: (s: EvaluationSpan) => Number(s.spanId) };

    it('sends a batch before a span would take it past maxBytes', async () => {
      const inner = recording();
      const batching = withBatching(inner.exporter, { maxSpans: 1024, maxDelayMs: 10, ...sized });
      await Promise.all([
        batching.export([span('40'), span('50')]),
        batching.export([span('20'), span('30')]),
        batching.export([span('60')]),
      ]);
      // 40 + 50 = 90; with 20, 110 > 100: sent. 20 + 30 + 60 = 110 > 100: sent before 60.
      expect(inner.requests).toEqual([['40', '50'], ['20', '30'], ['60']]);
    });

    it('sends a span past maxBytes alone, whole', async () => {
      const inner = recording();
      const batching = withBatching(inner.exporter, { maxSpans: 1024, maxDelayMs: 10, ...sized });
      await Promise.all([batching.export([span('10'), span('500'), span('10')])]);
      expect(inner.requests).toEqual([['10'], ['500'], ['10']]);
    });

    it('settles a call whose spans went in two requests by both', async () => {
      const inner = recording(ids => ids.includes('99'));
      const batching = withBatching(inner.exporter, { maxSpans: 1024, maxDelayMs: 10, ...sized });
      const results = await Promise.allSettled([
        batching.export([span('60')]),
        batching.export([span('30'), span('99')]), // 30 joins 60; 99 goes in the next request
        batching.export([span('1')]),
      ]);
      expect(inner.requests).toEqual([
        ['60', '30'],
        ['99', '1'],
      ]);
      expect(results.map(r => r.status)).toEqual(['fulfilled', 'rejected', 'rejected']);
    });

    it('does not tie a call to a request sent before its first span, which holds none of its spans', async () => {
      // The other call's request fails: only that call is rejected (the second was, and retried).
      const inner = recording(ids => ids.includes('90'));
      const batching = withBatching(inner.exporter, { maxSpans: 1024, maxDelayMs: 10, ...sized });
      const results = await Promise.allSettled([
        batching.export([span('90')]),
        batching.export([span('80')]), // does not fit beside 90: 90 goes alone
      ]);
      expect(inner.requests).toEqual([['90'], ['80']]);
      expect(results.map(r => r.status)).toEqual(['rejected', 'fulfilled']);
    });
  });
});
