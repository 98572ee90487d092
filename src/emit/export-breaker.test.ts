import { describe, expect, it } from 'vitest';
import { SpanscoreError } from '../errors/spanscore-error.js';
import { withExportBreaker } from './export-breaker.js';
import type { EvaluationExporter } from './otlp-evaluation-exporter.js';
import type { EvaluationSpan } from './score-to-span.js';

/** A backend that is down or up, counting the requests it got and answering when told to. */
function backend() {
  const state = { up: false, requests: 0, pending: [] as Array<() => void> };
  const exporter: EvaluationExporter = {
    export: () => {
      state.requests++;
      return new Promise<void>((resolve, reject) =>
        state.pending.push(() =>
          state.up ? resolve() : reject(new SpanscoreError('SS_EXPORT_FAILED', 'backend down')),
        ),
      );
    },
    shutdown: () => Promise.resolve(),
  };
  const answer = async (): Promise<void> => {
    const all = state.pending.splice(0);
    for (const a of all) a();
    await new Promise(r => setImmediate(r));
  };
  return { state, exporter, answer };
}

const spans = [] as EvaluationSpan[];

/** An export's outcome, caught as soon as it is made: 'ok' or its error. */
const settle = (p: Promise<void>): Promise<unknown> =>
  p.then(
    () => 'ok',
    (error: unknown) => error,
  );

describe('withExportBreaker', () => {
  it('does not hold the probing call longer than probeWaitMs when the backend hangs', async () => {
    const b = backend();
    let t = 0;
    const breaker = withExportBreaker(b.exporter, { now: () => t, probeWaitMs: 20 });
    const first = settle(breaker.export(spans));
    await b.answer();
    await first;
    t = 5000;
    // The backend never answers this probe: the caller is refused after 20 ms, the probe goes on.
    expect(await settle(breaker.export(spans))).toMatchObject({
      message: expect.stringContaining('not sent now') as unknown,
    });
    expect(b.state.requests).toBe(2);
    b.state.up = true;
    await b.answer(); // the late answer closes the breaker
    const after = settle(breaker.export(spans));
    await b.answer();
    expect(await after).toBe('ok');
  });

  it('lets exports through while the backend works, and the first failure through to its caller', async () => {
    const b = backend();
    b.state.up = true;
    const t = 0;
    const breaker = withExportBreaker(b.exporter, { now: () => t });
    const ok = settle(breaker.export(spans));
    await b.answer();
    expect(await ok).toBe('ok');
    b.state.up = false;
    const first = settle(breaker.export(spans));
    await b.answer();
    expect(await first).toMatchObject({ message: 'backend down' });
    expect(b.state.requests).toBe(2);
  });

  it('takes an export that throws rather than rejects as a failure: its caller gets a rejection, and the breaker opens', async () => {
    let calls = 0;
    const breaker = withExportBreaker(
      {
        export: () => {
          calls++;
          throw new SpanscoreError('SS_EXPORT_FAILED', 'no connection');
        },
        shutdown: () => Promise.resolve(),
      },
      { now: () => 0 },
    );
    const first = breaker.export(spans);
    expect(first).toBeInstanceOf(Promise);
    expect(await settle(first)).toMatchObject({ message: 'no connection' });
    // Open: refused at once, the inner exporter not called again within the probe interval.
    expect(await settle(breaker.export(spans))).toMatchObject({
      message: expect.stringContaining('not sent now') as unknown,
    });
    expect(calls).toBe(1);
  });

  it('fails fast while open, probes once per interval, and closes on a probe that succeeds', async () => {
    const b = backend();
    let t = 0;
    const breaker = withExportBreaker(b.exporter, {
      now: () => t,
      probeIntervalMs: 1000,
      probeWaitMs: 60_000,
    });
    const first = settle(breaker.export(spans));
    await b.answer();
    expect(await first).toMatchObject({ message: 'backend down' });

    // Open: refused at once, naming the last failure; no request before the interval.
    t = 500;
    await expect(breaker.export(spans)).rejects.toThrow(
      'backend down (the tracing backend has failed for 1 s: not sent now, retried with backoff)',
    );
    expect(b.state.requests).toBe(1);

    // After the interval: one probe; its caller waits (up to probeWaitMs), the others do not.
    t = 1000;
    const probing = settle(breaker.export(spans));
    await expect(breaker.export(spans)).rejects.toMatchObject({ code: 'SS_EXPORT_FAILED' });
    expect(b.state.requests).toBe(2); // one probe, however many callers
    await b.answer(); // the probe fails: still open, and its caller gets the failure
    expect(await probing).toMatchObject({ message: 'backend down' });
    t = 1500;
    await expect(breaker.export(spans)).rejects.toThrow('for 2 s');
    expect(b.state.requests).toBe(2);

    // The backend is back: the next probe succeeds, its caller with it, and the breaker closes.
    b.state.up = true;
    t = 2600;
    const probe = settle(breaker.export(spans));
    expect(b.state.requests).toBe(3);
    await b.answer();
    expect(await probe).toBe('ok');
    const after = settle(breaker.export(spans));
    expect(b.state.requests).toBe(4);
    await b.answer();
    expect(await after).toBe('ok');
  });
});
