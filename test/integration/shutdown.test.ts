/**
 * Shutdown that ends: the real CLI (`serve`, `worker`) scores traces, gets SIGINT or SIGTERM and
 * exits by itself with code 0, on both drivers, whether evaluation spans go to a live backend, to
 * an endpoint nothing listens on, or nowhere; a scored trace is never reported unfinished.
 */
import { mkdtempSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bullmqCliEnv, useProcessFixtures } from '../helpers/process-fixtures.js';
import { redisFor, testPrefix, waitFor } from '../helpers/redis.js';
import { resultRows } from '../helpers/result-rows.js';
import { sendSpans } from '../helpers/send-spans.js';
import { sdkAgentTrace } from '../helpers/sdk-spans.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const DEMO_SUITE = join(ROOT, 'config/suites/demo.yaml');

const { cleanups, run, backend } = useProcessFixtures();

/** A loopback URL on a port nothing listens on (bound a moment, then closed). */
async function deadEndpoint(): Promise<string> {
  const server = createServer();
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise(resolve => server.close(resolve));
  return `http://127.0.0.1:${port}/v1/traces`;
}

const resultsFile = () => join(mkdtempSync(join(tmpdir(), 'spanscore-shutdown-')), 'results.jsonl');

describe('shutdown of the real CLI', () => {
  const exports = {
    'an endpoint nothing listens on': async () => ({
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: await deadEndpoint(),
    }),
    'a live backend': async () => ({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: (await backend()).url }),
    'export off': () => Promise.resolve({ SPANSCORE_EXPORT: 'false' }),
  };
  // Both signals where shutdown has the most to wait for (exports that cannot be delivered); one
  // each elsewhere. `serve` and its bounded-heap child handle SIGINT and SIGTERM on one path, so
  // the other four pairs of the full matrix were two processes more per export mode, for nothing.
  const cases = [
    ['an endpoint nothing listens on', 'SIGINT'],
    ['an endpoint nothing listens on', 'SIGTERM'],
    ['a live backend', 'SIGINT'],
    ['export off', 'SIGTERM'],
  ] as const;

  for (const [name, signal] of cases)
    it(`serve (memory driver), ${name}: ${signal} after scoring exits 0, nothing unfinished`, async () => {
      const results = resultsFile();
      const serve = run(['serve', '--port', '0', '--host', '127.0.0.1', '--suite', DEMO_SUITE], {
        ...(await exports[name]()),
        SPANSCORE_SETTLE_MS: '100',
        SPANSCORE_RESULTS_FILE: results,
      });
      const url = (await serve.waitForLine(/listening on (\S+) \(memory driver\)/))[1]!;
      await sendSpans(url, sdkAgentTrace('weather-lisbon', ['get_weather']));
      await sendSpans(url, sdkAgentTrace('book-trip', ['search_flights', 'book_flight']));
      await waitFor(() => resultRows(results).length === 4, 'both traces scored');
      serve.child.kill(signal);
      expect(await serve.exited).toBe(0);
      expect(serve.stderr()).toMatch(new RegExp(`${signal}: shutting down[\\s\\S]*stopped`));
      expect(serve.stderr()).not.toMatch(/unfinished|deadline passed/);
    });

  it('serve (memory driver): a client stalled mid-body does not keep accepted traces from being scored at SIGTERM', async () => {
    // The stalled request held the server open past the shutdown deadline, and the trace
    // accepted before it was never scored ("deadline passed: exiting with work unfinished").
    const results = resultsFile();
    const serve = run(['serve', '--port', '0', '--host', '127.0.0.1', '--suite', DEMO_SUITE], {
      SPANSCORE_EXPORT: 'false',
      SPANSCORE_SETTLE_MS: '600000', // scored only by the shutdown
      SPANSCORE_RESULTS_FILE: results,
    });
    const url = (await serve.waitForLine(/listening on (\S+) \(memory driver\)/))[1]!;
    await sendSpans(url, sdkAgentTrace('weather-lisbon', ['get_weather']));
    const { hostname, port } = new URL(url);
    const stalled = connect(Number(port), hostname);
    cleanups.push(() => Promise.resolve(stalled.destroy()));
    await new Promise<void>(resolve => stalled.once('connect', resolve));
    stalled.write(
      'POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"',
    );
    serve.child.kill('SIGTERM');
    expect(await serve.exited).toBe(0);
    expect(resultRows(results).length).toBe(2); // the trace's two results
    expect(serve.stderr()).not.toMatch(/unfinished|deadline passed/);
  });

  it('serve --no-worker and worker (bullmq driver), export to an endpoint nothing listens on: both exit 0', async () => {
    const prefix = testPrefix();
    const redis = redisFor(prefix);
    cleanups.push(() => redis.cleanup());
    const results = resultsFile();
    const env = bullmqCliEnv(prefix, await deadEndpoint(), { SPANSCORE_RESULTS_FILE: results });
    const serve = run(
      ['serve', '--no-worker', '--port', '0', '--host', '127.0.0.1', '--suite', DEMO_SUITE],
      env,
    );
    const worker = run(['worker', '--suite', DEMO_SUITE], env);
    const url = (await serve.waitForLine(/listening on (\S+) \(bullmq driver\)/))[1]!;
    await worker.waitForLine(/taking traces from Redis/);
    await sendSpans(url, sdkAgentTrace('weather-lisbon', ['get_weather']));
    await waitFor(() => resultRows(results).length === 2, 'the trace scored', 20_000);
    worker.child.kill('SIGINT');
    serve.child.kill('SIGTERM');
    expect(await worker.exited).toBe(0);
    expect(await serve.exited).toBe(0);
    expect(worker.stderr()).not.toMatch(/unfinished|deadline passed/);
  });
});
