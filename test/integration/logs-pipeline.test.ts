import { readFileSync } from 'node:fs';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import type { StoredResult } from '../../src/results/stored-result.js';
import type { TraceResult } from '../../src/score/trace-run.js';
import { startService } from '../../src/server/start-service.js';
import { REDIS_URL, redisFor, testPrefix, waitFor } from '../helpers/redis.js';

/**
 * The logs signal through a live service on both drivers: what the OpenTelemetry OpenAI
 * instrumentation's exporters sent (captures/opentelemetry-openai.ts: a `chat` span per model
 * call, the messages as log records) posted to `/v1/traces` and `/v1/logs` in either order, as
 * JSON and as protobuf. Every scenario is scored with its tool calls from the logs: the capture
 * suite passes, a deliberately wrong one fails.
 */
const ROOT = new URL('../../', import.meta.url).pathname;
const FIXTURES = join(ROOT, 'test/fixtures/otlp');
const CAPTURE = 'captured-opentelemetry-openai-0.21.0';
/** Every capture whose tool calls are in log records, each a JSON array of [traces, logs]. */
const LOG_CAPTURES = [
  CAPTURE,
  'captured-elastic-openai-0.5.1-openai-4.104.0',
  'captured-openlit-1.15.0',
];
const SUITE = join(ROOT, 'config/suites/framework-captures.yaml');
const WRONG = `
name: wrong
scorers: [{ name: tool_trajectory, match: exact, args: subset }]
testCases:
  - id: one-tool
    expectedCalls: [{ name: get_weather, args: { city: Lisbon } }]
  - id: two-tools-in-order
    expectedCalls: [{ name: book_flight }, { name: search_flights }]
  - id: same-tool-twice
    expectedCalls: [{ name: get_weather, args: { city: Paris } }]
`;

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

/** One export request: the signal's path, its content type and body. */
interface Post {
  path: '/v1/traces' | '/v1/logs';
  type: string;
  body: Buffer;
}

function capturedPosts(
  format: 'json' | 'protobuf',
  capture = CAPTURE,
): { traces: Post; logs: Post } {
  if (format === 'protobuf')
    return {
      traces: {
        path: '/v1/traces',
        type: 'application/x-protobuf',
        body: readFileSync(join(FIXTURES, `${capture}.otlp.pb`)),
      },
      logs: {
        path: '/v1/logs',
        type: 'application/x-protobuf',
        body: readFileSync(join(FIXTURES, `${capture}.logs.pb`)),
      },
    };
  const [traces, logs] = JSON.parse(
    readFileSync(join(FIXTURES, `${capture}.otlp.json`), 'utf8'),
  ) as [unknown, unknown];
  const json = (path: Post['path'], body: unknown): Post => ({
    path,
    type: 'application/json',
    body: Buffer.from(JSON.stringify(body)),
  });
  return { traces: json('/v1/traces', traces), logs: json('/v1/logs', logs) };
}

async function startLive(driver: 'memory' | 'bullmq', more: Record<string, unknown> = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'spanscore-logs-'));
  writeFileSync(join(dir, 'wrong.yaml'), WRONG);
  const prefix = testPrefix();
  if (driver === 'bullmq') closers.push(redisFor(prefix).cleanup);
  const config = await loadConfig({
    env: {},
    overrides: {
      'queue.driver': driver,
      ...(driver === 'bullmq' && { 'queue.redisUrl': REDIS_URL, 'queue.prefix': prefix }),
      'receiver.port': 0,
      'receiver.host': '127.0.0.1',
      'assembly.settleMs': 1000,
      'export.enabled': false,
      'export.logResults': false,
      suites: [SUITE, join(dir, 'wrong.yaml')],
      ...more,
    },
  });
  const results: TraceResult[] = [];
  const lines: string[] = [];
  const service = await startService(
    config,
    { receiver: true, workers: true },
    { log: line => lines.push(line), onResult: r => results.push(r) },
  );
  closers.push(() => service.close());
  return { origin: new URL(service.url!).origin, results, lines };
}

const labels = (results: TraceResult[]) =>
  Object.fromEntries(
    results.flatMap(r =>
      r.outcomes.map(o => [
        `${r.suite} ${r.testCaseId} ${o.scorer}`,
        o.result.status === 'scored' ? o.result.label : o.result.status,
      ]),
    ),
  );

describe.each(['memory', 'bullmq'] as const)(
  'the logs signal through serve (%s driver)',
  driver => {
    it.each([
      ...LOG_CAPTURES.flatMap(capture =>
        (['traces first', 'logs first'] as const).map(order => [capture, 'json', order] as const),
      ),
      [CAPTURE, 'protobuf', 'logs first'],
      [CAPTURE, 'protobuf', 'traces first'],
      ['captured-elastic-openai-0.5.1-openai-4.104.0', 'protobuf', 'logs first'],
    ] as const)(
      '%s, %s, %s: each run is scored with the tool calls of its log records',
      async (capture, format, order) => {
        const { origin, results } = await startLive(driver);
        const { traces, logs } = capturedPosts(format, capture);
        for (const post of order === 'traces first' ? [traces, logs] : [logs, traces]) {
          const response = await fetch(`${origin}${post.path}`, {
            method: 'POST',
            headers: { 'content-type': post.type },
            body: post.body,
          });
          expect(response.status, post.path).toBe(200);
        }
        await waitFor(() => results.length === 6, 'three runs scored by two suites', 20_000);
        expect(labels(results)).toEqual({
          'framework-captures one-tool tool_correctness': 'pass',
          'framework-captures one-tool tool_trajectory': 'pass',
          'framework-captures two-tools-in-order tool_correctness': 'pass',
          'framework-captures two-tools-in-order tool_trajectory': 'pass',
          'framework-captures same-tool-twice tool_correctness': 'pass',
          'framework-captures same-tool-twice tool_trajectory': 'pass',
          'wrong one-tool tool_trajectory': 'fail',
          'wrong two-tools-in-order tool_trajectory': 'fail',
          'wrong same-tool-twice tool_trajectory': 'fail',
        });
        const twoTools = results.find(r => r.testCaseId === 'two-tools-in-order')!;
        // OpenLIT records the messages on its chat spans too: those are read first.
        const signal = capture === 'captured-openlit-1.15.0' ? undefined : 'logs';
        expect(twoTools.trace.toolSequence.map(c => [c.name, c.signal, c.result])).toEqual([
          [
            'search_flights',
            signal,
            { flights: [{ id: 'TP541', from: 'BER', to: 'LIS', date: '2026-12-01' }] },
          ],
          ['book_flight', signal, { confirmation: 'CONF-TP541' }],
        ]);
      },
    );
  },
);

describe.each(['memory', 'bullmq'] as const)(
  'log records after their trace was scored (%s driver)',
  driver => {
    it('are late spans: counted, and with rescoreLateSpans the trace is scored again with their calls', async () => {
      const { origin, results, lines } = await startLive(driver, {
        'assembly.settleMs': 200,
        'assembly.logsWaitMs': 0,
        'assembly.rescoreLateSpans': true,
      });
      const { traces, logs } = capturedPosts('json');
      const post = (p: Post) =>
        fetch(`${origin}${p.path}`, {
          method: 'POST',
          headers: { 'content-type': p.type },
          body: p.body,
        });
      expect((await post(traces)).status).toBe(200);
      await waitFor(() => results.length === 6, 'the runs scored without their logs', 20_000);
      const first = results.find(
        r => r.suite === 'framework-captures' && r.testCaseId === 'one-tool',
      )!;
      expect(first.trace.toolSequence).toEqual([]);
      expect((await post(logs)).status).toBe(200);
      await waitFor(() => results.length === 12, 'the runs scored again with their logs', 20_000);
      expect(lines.filter(l => / late span\(s\) for trace .*: rescoring$/.test(l))).toHaveLength(3);
      const again = results
        .slice(6)
        .find(r => r.suite === 'framework-captures' && r.testCaseId === 'one-tool')!;
      expect(again.trace.toolSequence.map(c => [c.name, c.signal])).toEqual([
        ['get_weather', 'logs'],
      ]);
      expect(labels(results.slice(6))).toMatchObject({
        'framework-captures one-tool tool_trajectory': 'pass',
        'framework-captures two-tools-in-order tool_trajectory': 'pass',
        'framework-captures same-tool-twice tool_trajectory': 'pass',
      });
      // The rescores replaced the first passes' results: three results per trace (two scorers of
      // the capture suite, one of the wrong suite), listed and counted once.
      const api = async (path: string) =>
        (await (await fetch(`${origin}/api/v1/${path}`)).json()) as Record<string, unknown>;
      const listed = (await api('results?window=1h&limit=100')).results as StoredResult[];
      expect(listed).toHaveLength(9);
      expect(new Set(listed.map(r => r.traceId)).size).toBe(3);
      expect(
        listed
          .filter(r => r.suite === 'framework-captures')
          .map(r => [r.scorer, r.label, r.toolSequence.length > 0]),
      ).toEqual(Array(6).fill([expect.any(String), 'pass', true]));
      const summary = await api('summary?window=1h');
      expect(summary.total).toMatchObject({ count: 9, pass: 6, fail: 3 });
    });
  },
);

describe.each(['memory', 'bullmq'] as const)(
  'a trace whose calls are in log records still on their way (%s driver)',
  driver => {
    it('waits logsWaitMs past the settle time for its first log record, and is scored once, with the calls', async () => {
      const { origin, results, lines } = await startLive(driver, {
        'assembly.settleMs': 200,
        'assembly.logsWaitMs': 8000,
      });
      const { traces, logs } = capturedPosts('json');
      const post = (p: Post) =>
        fetch(`${origin}${p.path}`, {
          method: 'POST',
          headers: { 'content-type': p.type },
          body: p.body,
        });
      expect((await post(traces)).status).toBe(200);
      // The logs come well after the settle time (as when the logs exporter batches longer).
      await new Promise(resolve => setTimeout(resolve, 1500));
      expect((await post(logs)).status).toBe(200);
      await waitFor(() => results.length === 6, 'three runs scored by two suites', 20_000);
      expect(labels(results)).toMatchObject({
        'framework-captures one-tool tool_trajectory': 'pass',
        'framework-captures two-tools-in-order tool_trajectory': 'pass',
        'framework-captures same-tool-twice tool_trajectory': 'pass',
      });
      expect(lines.filter(l => /late span/.test(l))).toEqual([]);
      const oneTool = results.find(r => r.testCaseId === 'one-tool')!;
      expect(oneTool.trace.toolSequence.map(c => [c.name, c.signal])).toEqual([
        ['get_weather', 'logs'],
      ]);
    });
  },
);
