import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { bullmqCliEnv, useProcessFixtures } from '../helpers/process-fixtures.js';
import { resultRows } from '../helpers/result-rows.js';
import { sendSpans } from '../helpers/send-spans.js';
import { REDIS_URL, redisFor, testPrefix, waitFor } from '../helpers/redis.js';
import { sdkAgentTrace } from '../helpers/sdk-spans.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const DEMO_SUITE = join(ROOT, 'config/suites/demo.yaml');

const { cleanups, run, backend } = useProcessFixtures();

describe('spanscore serve (memory driver), as a process', () => {
  it('scores traces sent by the real exporter, writes evaluation spans back, and on SIGTERM scores what it buffered and exits 0', async () => {
    const otlp = await backend();
    const results = join(mkdtempSync(join(tmpdir(), 'spanscore-serve-')), 'results.jsonl');
    const serve = run(
      ['serve', '--port', '0', '--host', '127.0.0.1', '--suite', DEMO_SUITE, '--results', results],
      {
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: otlp.url,
        SPANSCORE_SETTLE_MS: '200',
        SPANSCORE_MAX_WAIT_MS: '60000',
      },
    );
    const url = (await serve.waitForLine(/listening on (\S+) \(memory driver\)/))[1]!;
    expect(serve.stderr()).toContain('nothing survives a restart');

    await sendSpans(url, sdkAgentTrace('weather-lisbon', ['get_weather']));
    await waitFor(() => resultRows(results).length === 2, 'the first trace to be scored');
    expect(resultRows(results).map(r => [r.testCaseId, r.scorer, r.score])).toEqual([
      ['weather-lisbon', 'tool_call_accuracy', 1],
      ['weather-lisbon', 'tool_correctness', 1],
    ]);
    await waitFor(() => otlp.spans.length === 2, 'the evaluation spans');
    const metrics = await (await fetch(url.replace('/v1/traces', '/metrics'))).text();
    expect(metrics).toMatch(/^spanscore_traces_scored_total 1$/m);
    expect(metrics).toMatch(
      /^spanscore_scores_total\{scorer="tool_correctness",status="scored",label="pass"\} 1$/m,
    );
    expect(metrics).toMatch(/^spanscore_spans_received_total 2$/m);

    // No root: this trace would wait 60 s for it, but shutdown scores it now.
    await sendSpans(url, sdkAgentTrace('wrong-tool', ['search_web'], { withRoot: false }));
    serve.child.kill('SIGTERM');
    expect(await serve.exited).toBe(0);
    expect(serve.stderr()).toMatch(/SIGTERM: shutting down[\s\S]*stopped/);
    expect(
      resultRows(results)
        .filter(r => r.testCaseId === 'wrong-tool')
        .map(r => r.label),
    ).toEqual(['fail', 'fail']);
    expect(otlp.spans).toHaveLength(4);
  });

  it('on a non-default port says where evaluation spans go and why, warns when nothing answers there, and logs a failed export', async () => {
    const dead = createServer();
    await new Promise<void>(resolve => dead.listen(0, '127.0.0.1', resolve));
    const { port } = dead.address() as { port: number };
    await new Promise(resolve => dead.close(resolve));
    const endpoint = `http://127.0.0.1:${port}/v1/traces`;
    const serve = run(['serve', '--port', '0', '--host', '127.0.0.1', '--suite', DEMO_SUITE], {
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: endpoint,
      SPANSCORE_SETTLE_MS: '100',
    });
    const url = (await serve.waitForLine(/listening on (\S+) \(memory driver\)/))[1]!;
    expect(serve.stderr()).toContain(
      `spanscore: evaluation spans go to ${endpoint} (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT; SPANSCORE_EXPORT=false turns export off)\n`,
    );
    await serve.waitForLine(
      new RegExp(
        `warning: nothing answers at ${endpoint.replace(/[.]/g, '\\.')} \\(ECONNREFUSED\\)`,
      ),
    );
    await sendSpans(url, sdkAgentTrace('weather-lisbon', ['get_weather']));
    await sendSpans(url, sdkAgentTrace('book-trip', ['search_flights', 'book_flight']));
    await serve.waitForLine(/exporting evaluation spans to \S+ failed: .*ECONNREFUSED/, 30_000);
    // Once a minute at most, however many exports fail.
    expect(serve.stderr().match(/exporting evaluation spans to/g)).toHaveLength(1);

    // Nothing set at all, on a port other than 4318: the OTLP default, and it says so.
    const other = run(['serve', '--port', '0', '--host', '127.0.0.1', '--suite', DEMO_SUITE], {
      OTEL_EXPORTER_OTLP_ENDPOINT: undefined,
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: undefined,
    });
    await other.waitForLine(/listening on/);
    expect(other.stderr()).toContain(
      'spanscore: evaluation spans go to http://localhost:4318/v1/traces (the OTLP default: nothing set; SPANSCORE_EXPORT=false turns export off)\n',
    );
  });

  it('says once which test case id matched no suite, and the ids it was most likely meant to be', async () => {
    const serve = run(['serve', '--port', '0', '--host', '127.0.0.1', '--suite', DEMO_SUITE], {
      SPANSCORE_EXPORT: 'false',
      SPANSCORE_SETTLE_MS: '100',
    });
    const url = (await serve.waitForLine(/listening on (\S+) \(memory driver\)/))[1]!;
    await sendSpans(url, sdkAgentTrace('weather-lisbn', ['get_weather']));
    await sendSpans(url, sdkAgentTrace('weather-lisbn', ['get_weather']));
    await serve.waitForLine(/which no loaded suite has/);
    await new Promise(r => setTimeout(r, 500)); // the second trace is handled too
    expect(
      serve
        .stderr()
        .match(
          /has test case id "weather-lisbn", which no loaded suite has \(closest: weather-lisbon[,)]/g,
        ),
    ).toHaveLength(1);
  });

  it('on a busy port says so in one line with the --port hint, exit 2, before starting anything', async () => {
    const busy = createServer();
    await new Promise<void>(resolve => busy.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise(resolve => busy.close(resolve)));
    const { port } = busy.address() as { port: number };
    const serve = run(['serve', '--port', String(port), '--host', '127.0.0.1']);
    expect(await serve.exited).toBe(2);
    expect(serve.stderr()).toBe(
      `spanscore: port ${port} is already in use on 127.0.0.1: start serve on another one with --port N (or SPANSCORE_PORT), or stop what listens there\n`,
    );
  });

  it('refuses a bad configuration with a message naming the variable, exit 2', async () => {
    const serve = run(['serve', '--port', '0'], { SPANSCORE_SETTLE_MS: 'soon' });
    expect(await serve.exited).toBe(2);
    expect(serve.stderr()).toMatch(
      /invalid configuration, environment variable SPANSCORE_SETTLE_MS: .*expected number/,
    );
  });
});

describe('spanscore serve --no-worker and spanscore worker (bullmq driver), as processes', () => {
  it('a receiver and a separate worker share a real Redis; a worker started after the spans arrived scores them', async () => {
    const prefix = testPrefix();
    cleanups.push(redisFor(prefix).cleanup);
    const otlp = await backend();
    const results = join(mkdtempSync(join(tmpdir(), 'spanscore-worker-')), 'results.jsonl');
    const env = bullmqCliEnv(prefix, otlp.url, { SPANSCORE_SETTLE_MS: '200' });
    const serve = run(
      ['serve', '--no-worker', '--port', '0', '--host', '127.0.0.1', '--suite', DEMO_SUITE],
      env,
    );
    const url = (await serve.waitForLine(/listening on (\S+) \(bullmq driver\)/))[1]!;

    const booking = sdkAgentTrace('book-trip', ['search_flights', 'book_flight']);
    const wrong = sdkAgentTrace('wrong-tool', ['search_web']);
    await sendSpans(url, booking);
    await sendSpans(url, wrong);
    await new Promise(r => setTimeout(r, 400)); // settled, but no worker yet: the jobs wait in Redis

    const worker = run(['worker', '--suite', DEMO_SUITE, '--results', results], env);
    await worker.waitForLine(/taking traces from Redis/);
    await waitFor(() => resultRows(results).length === 4, 'both traces scored by the worker');
    expect(
      resultRows(results)
        .map(r => `${r.testCaseId} ${r.scorer} ${r.label}`)
        .sort(),
    ).toEqual([
      'book-trip tool_call_accuracy pass',
      'book-trip tool_correctness pass',
      'wrong-tool tool_call_accuracy fail',
      'wrong-tool tool_correctness fail',
    ]);
    await waitFor(() => otlp.spans.length === 4, 'the evaluation spans');
    const rootOf = (run: ReadableSpan[]) => run.find(s => s.name === 'invoke_agent')!.spanContext();
    const rows = otlp.spans
      .map(s => ({
        trace: s.traceId,
        parent: s.parentSpanId,
        name: s.name,
        score: s.attributes['gen_ai.evaluation.score.value'],
        label: s.attributes['gen_ai.evaluation.score.label'] as string,
      }))
      .sort((a, b) => `${a.name} ${a.label}`.localeCompare(`${b.name} ${b.label}`));
    const row = (run: ReadableSpan[], name: string, score: number, label: string) => ({
      trace: rootOf(run).traceId,
      parent: rootOf(run).spanId,
      name,
      score,
      label,
    });
    expect(rows).toEqual([
      row(wrong, 'evaluation tool_call_accuracy', 0, 'fail'),
      row(booking, 'evaluation tool_call_accuracy', 1, 'pass'),
      row(wrong, 'evaluation tool_correctness', 0, 'fail'),
      row(booking, 'evaluation tool_correctness', 1, 'pass'),
    ]);

    worker.child.kill('SIGTERM');
    serve.child.kill('SIGTERM');
    expect(await worker.exited).toBe(0);
    expect(await serve.exited).toBe(0);
  });

  it('SIGTERM while a worker is exporting: the trace in flight is finished and written back, then it exits 0', async () => {
    const prefix = testPrefix();
    cleanups.push(redisFor(prefix).cleanup);
    const otlp = await backend(1500); // a slow backend keeps the job active
    const results = join(mkdtempSync(join(tmpdir(), 'spanscore-sigterm-')), 'results.jsonl');
    const env = bullmqCliEnv(prefix, otlp.url);
    const serve = run(
      ['serve', '--port', '0', '--host', '127.0.0.1', '--suite', DEMO_SUITE, '--results', results],
      env,
    );
    const url = (await serve.waitForLine(/listening on (\S+) \(bullmq driver\)/))[1]!;
    await sendSpans(url, sdkAgentTrace('weather-lisbon', ['get_weather']));
    await waitFor(() => otlp.requests() === 1, 'the export to start');
    expect(otlp.spans).toHaveLength(0);
    serve.child.kill('SIGTERM');
    expect(await serve.exited).toBe(0);
    expect(otlp.spans.map(s => s.name).sort()).toEqual([
      'evaluation tool_call_accuracy',
      'evaluation tool_correctness',
    ]);
    expect(resultRows(results).map(r => r.label)).toEqual(['pass', 'pass']);
  });

  it('serve --no-worker loads no suite (the workers do) and says so', async () => {
    const prefix = testPrefix();
    cleanups.push(redisFor(prefix).cleanup);
    const serve = run(
      [
        'serve',
        '--no-worker',
        '--port',
        '0',
        '--host',
        '127.0.0.1',
        '--suite',
        '/nonexistent.yaml',
      ],
      { REDIS_URL, SPANSCORE_REDIS_PREFIX: prefix },
    );
    await serve.waitForLine(/listening on (\S+) \(bullmq driver\)/);
    expect(serve.stderr()).toContain(
      'receiver only: suites and rules are loaded and scored by the workers',
    );
    serve.child.kill('SIGTERM');
    expect(await serve.exited).toBe(0);
  });

  it('serve --no-worker without Redis says why and exits 2', async () => {
    const serve = run(['serve', '--no-worker', '--port', '0']);
    expect(await serve.exited).toBe(2);
    expect(serve.stderr()).toContain('drop --no-worker, or set REDIS_URL');
  });

  it('a worker whose suite cannot be read says which file and exits 2, leaving no Redis connection open', async () => {
    const prefix = testPrefix();
    const redis = redisFor(prefix);
    try {
      // A process that kept its Redis connections open would never exit: the wait would time out.
      const worker = run(['worker', '--suite', 'no/such/suite.yaml'], {
        REDIS_URL,
        SPANSCORE_REDIS_PREFIX: prefix,
      });
      expect(await worker.exited).toBe(2);
      expect(worker.stderr()).toContain('no/such/suite.yaml');
    } finally {
      await redis.cleanup();
    }
  });

  it('spanscore worker without Redis says why and exits 2', async () => {
    const worker = run(['worker']);
    expect(await worker.exited).toBe(2);
    expect(worker.stderr()).toContain('needs Redis (set REDIS_URL)');
  });
});

describe('spanscore serve --demo', () => {
  it('has scores on its results page at once: the sample agent runs against it, tool health included', async () => {
    const serve = run(['serve', '--demo', '--port', '0', '--host', '127.0.0.1'], {
      REDIS_URL: undefined,
      SPANSCORE_EXPORT: 'false',
    });
    const url = (await serve.waitForLine(/listening on (\S+) \(memory driver\)/))[1]!;
    await serve.waitForLine(
      /--demo: the sample agent sent 6 runs here \(3 test cases of the demo suite, 3 for tool health\)/,
    );
    const summary = async () =>
      (await (await fetch(url.replace('/v1/traces', '/api/v1/summary'))).json()) as {
        total: { count: number; pass: number; fail: number; skipped: number };
        byTarget: Array<{ testCaseId: string }>;
      };
    await waitFor(
      async () => (await summary()).total.count === 15,
      'the sample runs scored',
      20_000,
    );
    expect((await summary()).total).toMatchObject({ count: 15, pass: 10, fail: 5, skipped: 0 });
    // The sample agent records its tools' schemas: the first page has an invalid-arguments finding.
    const invalid = (await (
      await fetch(url.replace('/v1/traces', '/api/v1/results?scorer=tool_arguments&label=fail'))
    ).json()) as { results: Array<{ reason: string }> };
    expect(invalid.results.map(r => r.reason)).toEqual([
      'search_flights was called with invalid arguments: /from must match pattern "^[A-Z]{3}$"',
    ]);
    expect(new Set((await summary()).byTarget.map(t => t.testCaseId))).toEqual(
      new Set(['weather-lisbon', 'book-trip', 'wrong-tool', 'rule:tool-health']),
    );
    expect(serve.stderr()).toContain('spanscore: suite "demo"');
    serve.child.kill('SIGTERM');
    expect(await serve.exited).toBe(0);
  });
});

describe('spanscore demo', () => {
  it("runs on a fresh clone with no Redis: the sample agent's three test cases are scored and written back", async () => {
    const demo = run(['demo'], { REDIS_URL: undefined });
    expect(await demo.exited).toBe(0);
    // The demo suite's three test cases, and three production runs scored for tool health.
    expect(demo.stdout()).toMatch(/15 results: 10 passed, 5 failed, 0 skipped, 0 errors/);
    expect(demo.stdout()).toMatch(/wrong-tool\s+│ tool_call_accuracy │ 0\s+│ fail/);
    expect(demo.stdout()).toMatch(
      /rule:tool-health │ tool_errors\s+│ 0\s+│ fail\s+│ 1 of 1 tool call\(s\) failed: getWeather: no/,
    );
    expect(demo.stdout()).toMatch(
      /rule:tool-health │ tool_loops\s+│ 0\s+│ fail\s+│ getWeather was called 3 times/,
    );
    expect(demo.stdout()).toMatch(
      /rule:tool-health │ tool_arguments\s+│ 0\s+│ fail\s+│ search_flights was called with invalid arguments/,
    );
    expect(demo.stderr()).toContain('15 evaluation spans were written back');
  });
});
