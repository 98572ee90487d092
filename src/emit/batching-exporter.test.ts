import { describe, expect, it } from 'vitest';
import { withBatching } from './batching-exporter.js';
import type { EvaluationExporter } from './otlp-evaluation-exporter.js';
import type { EvaluationSpan } from './score-to-span.js';

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
    const batching = withBatching(inner.exporter, { maxSpans: 1024, maxDelayMs: 20 });
    await Promise.all([
      batching.export([span('a'), span('b')]),
      batching.export([span('c')]),
      batching.export([]),
    ]);
    expect(inner.requests).toEqual([['a', 'b', 'c']]);
  });

  it('flushes at maxSpans without waiting, and splits later calls into the next batch', async () => {
    const inner = recording();
    const batching = withBatching(inner.exporter, { maxSpans: 2, maxDelayMs: 10_000 });
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
    const batching = withBatching(inner.exporter, { maxSpans: 2, maxDelayMs: 10 });
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
      { maxSpans: 1, maxDelayMs: 10 },
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
});
