/**
 * Liveness under a burst: how long `/healthz` takes to answer while the embedded default
 * (`spanscore serve`, memory driver, its bounded heap; the built CLI) takes 100,000 one-span
 * traces in 10 OTLP/JSON requests of 10,000, each sent again after its `Retry-After` while the
 * buffer is full (as an exporter does), until every trace has been handled. `/healthz` is polled
 * every 50 ms from the first request to the last trace. The abuse suite sends the same burst and
 * asserts that every trace is handled and `/healthz` answers throughout; how fast is measured here,
 * where timings belong.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { percentile } from './measure.js';

const ROOT = new URL('../', import.meta.url).pathname;
const TRACES = 100_000;
const PER_REQUEST = 10_000;

/** What {@link burstBench} measured. */
export interface BurstResult {
  traces: number;
  /** Requests answered 429 and sent again. */
  refusals: number;
  /** First request to the last trace handled. */
  seconds: number;
  healthz: { polls: number; p50Ms: number; p99Ms: number; maxMs: number };
}

const hex = (n: number, width: number): string => n.toString(16).padStart(width, '0');

/** `count` one-span traces (each span its trace's root) from `first`, as an OTLP/JSON body. */
function tinyTraces(first: number, count: number): string {
  const spans = Array.from({ length: count }, (_, i) => ({
    traceId: hex(first + i, 32),
    spanId: hex(first + i, 16),
    name: 'invoke_agent',
    kind: 1,
    startTimeUnixNano: '1767225600000000000',
    endTimeUnixNano: '1767225600001000000',
  }));
  return JSON.stringify({
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'burst' } }] },
        scopeSpans: [{ scope: { name: 'bench' }, spans }],
      },
    ],
  });
}

const handled = async (origin: string): Promise<number> => {
  const text = await (await fetch(`${origin}/metrics`)).text();
  return Number(/^spanscore_traces_not_scored_total\S* (\d+)$/m.exec(text)?.[1] ?? 0);
};

/** Runs the burst against a fresh `serve` (built CLI, default config, no export). */
export async function burstBench(): Promise<BurstResult> {
  const child = spawn(
    process.execPath,
    [join(ROOT, 'dist/cli/bin.js'), 'serve', '--port', '0', '--host', '127.0.0.1'],
    {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'pipe'],
      env: {
        ...process.env,
        REDIS_URL: undefined,
        SPANSCORE_EXPORT: 'false',
        SPANSCORE_SETTLE_MS: '100',
      },
    },
  );
  try {
    const origin = await new Promise<string>((resolve, reject) => {
      let err = '';
      child.stderr.on('data', (d: Buffer) => {
        err += d.toString();
        const match = /listening on (\S+) \(memory driver\)/.exec(err);
        if (match) resolve(new URL(match[1]!).origin);
      });
      child.on('exit', code => reject(new Error(`serve exited ${code}:\n${err}`)));
    });
    const bodies = Array.from({ length: TRACES / PER_REQUEST }, (_, k) =>
      tinyTraces(1 + k * PER_REQUEST, PER_REQUEST),
    );
    const answeredMs: number[] = [];
    let polling = true;
    const poller = (async () => {
      while (polling) {
        const started = performance.now();
        const response = await fetch(`${origin}/healthz`);
        await response.arrayBuffer();
        if (response.status !== 200) throw new Error(`/healthz answered ${response.status}`);
        answeredMs.push(performance.now() - started);
        await new Promise(r => setTimeout(r, 50));
      }
    })();
    const started = performance.now();
    let refusals = 0;
    for (const body of bodies)
      for (;;) {
        const response = await fetch(`${origin}/v1/traces`, {
          method: 'POST',
          body,
          headers: { 'content-type': 'application/json' },
        });
        await response.arrayBuffer();
        if (response.status === 200) break;
        if (response.status !== 429) throw new Error(`the burst was answered ${response.status}`);
        refusals++;
        await new Promise(r => setTimeout(r, Number(response.headers.get('retry-after')) * 1000));
      }
    while ((await handled(origin)) < TRACES) await new Promise(r => setTimeout(r, 100));
    const seconds = (performance.now() - started) / 1000;
    polling = false;
    await poller;
    return {
      traces: TRACES,
      refusals,
      seconds,
      healthz: {
        polls: answeredMs.length,
        p50Ms: percentile(answeredMs, 0.5),
        p99Ms: percentile(answeredMs, 0.99),
        maxMs: Math.max(...answeredMs),
      },
    };
  } finally {
    child.kill('SIGKILL');
  }
}
