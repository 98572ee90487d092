import { join } from 'node:path';
import { loadConfig } from '../../src/config/load-config.js';
import { startService, type Service, type ServiceHooks } from '../../src/server/start-service.js';
import { otlpRequest, spanId, traceId, type SpanInput } from './otlp-json-builder.js';
import { waitFor } from './redis.js';

const ROOT = new URL('../../', import.meta.url).pathname;

/** One agent run: its test case id (if any), its tool calls, whether its root span arrives. */
export interface KnownRun {
  name: string;
  testCaseId?: string;
  tools: string[];
  service?: string;
  /** The resource's `service.version`. */
  version?: string;
  /** false: only the tool spans are sent, so the trace stays pending. @defaultValue true */
  rootEnded?: boolean;
  /** Per tool, the recorded `gen_ai.tool.call.arguments` and `.result` (JSON text). */
  toolArgs?: Array<string | undefined>;
  toolResults?: Array<string | undefined>;
  /** `gen_ai.agent.name` of the root span. @defaultValue 'travel' */
  agentName?: string;
}

/**
 * Known traffic for the demo suite (config/suites/demo.yaml: tool_call_accuracy and
 * tool_correctness on weather-lisbon, book-trip and wrong-tool). 5 traces are scored: 10 results,
 * 5 pass and 5 fail (tool_call_accuracy 2 of 5 pass, tool_correctness 3 of 5); one trace names an
 * unknown test case, one has no id, and one never sends its root span, so it stays pending.
 */
export const KNOWN_RUNS: KnownRun[] = [
  { name: 'weather-ok', testCaseId: 'weather-lisbon', tools: ['get_weather'] },
  { name: 'book-ok', testCaseId: 'book-trip', tools: ['search_flights', 'book_flight'] },
  { name: 'book-wrong-order', testCaseId: 'book-trip', tools: ['book_flight', 'search_flights'] },
  {
    name: 'wrong-tool',
    testCaseId: 'wrong-tool',
    tools: ['search_web'],
    service: 'travel-agent-v2',
  },
  { name: 'weather-extra', testCaseId: 'weather-lisbon', tools: ['get_weather', 'search_web'] },
  { name: 'unknown-case', testCaseId: 'no-such-case', tools: ['get_weather'] },
  { name: 'no-id', tools: ['get_weather'] },
  { name: 'pending', testCaseId: 'book-trip', tools: ['search_flights'], rootEnded: false },
];

let next = 0x5000 + Math.floor(Math.random() * 0x1000) * 16;

/** The OTLP/JSON request of a run, with fresh ids; returns it with its trace id. */
export function runRequest(run: KnownRun): { traceId: string; body: unknown } {
  const n = next++;
  const t = traceId(n);
  const service = run.service ?? 'travel-agent';
  const spans: SpanInput[] = run.tools.map((tool, i) => ({
    traceId: t,
    spanId: spanId(n, i + 2),
    parentSpanId: spanId(n, 1),
    name: `execute_tool ${tool}`,
    startMs: 10 + i * 10,
    endMs: 15 + i * 10,
    service,
    ...(run.version && { resource: { 'service.version': run.version } }),
    attributes: {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': tool,
      ...(run.testCaseId && { 'spanscore.test_case.id': run.testCaseId }),
      ...(run.toolArgs?.[i] !== undefined && { 'gen_ai.tool.call.arguments': run.toolArgs[i] }),
      ...(run.toolResults?.[i] !== undefined && {
        'gen_ai.tool.call.result': run.toolResults[i],
      }),
    },
  }));
  if (run.rootEnded !== false)
    spans.push({
      traceId: t,
      spanId: spanId(n, 1),
      name: 'invoke_agent travel',
      startMs: 0,
      endMs: 100,
      service,
      ...(run.version && { resource: { 'service.version': run.version } }),
      attributes: {
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.agent.name': run.agentName ?? 'travel',
        ...(run.testCaseId && { 'spanscore.test_case.id': run.testCaseId }),
      },
    });
  return { traceId: t, body: otlpRequest(spans) };
}

/** Sends one run to a receiver's `/v1/traces` URL as OTLP/JSON; resolves with its trace id. */
export async function sendRun(url: string, run: KnownRun): Promise<string> {
  const { traceId, body } = runRequest(run);
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`send ${run.name}: HTTP ${response.status}`);
  return traceId;
}

/**
 * A running `serve` (memory driver unless `overrides` say otherwise) fed {@link KNOWN_RUNS}, with
 * tool health off: the counts the tests expect are the demo suite's (tool health on the same
 * traffic is `test/integration/tool-health-service.test.ts`'s).
 */
export async function serveWithKnownTraffic(
  overrides: Record<string, unknown> = {},
  env: Record<string, string> = {},
  hooks: ServiceHooks = {},
): Promise<{
  service: Service;
  origin: string;
  ids: Record<string, string>;
  close: () => Promise<void>;
}> {
  const config = await loadConfig({
    env,
    overrides: {
      'receiver.port': 0,
      'receiver.host': '127.0.0.1',
      'assembly.settleMs': 100,
      'assembly.maxWaitMs': 600_000,
      'export.logResults': false,
      'toolHealth.enabled': false,
      suites: [join(ROOT, 'config/suites/demo.yaml')],
      ...overrides,
    },
  });
  const service = await startService(
    config,
    { receiver: true, workers: true },
    {
      log: () => undefined,
      exporter: { export: () => Promise.resolve(), shutdown: () => Promise.resolve() },
      ...hooks,
    },
  );
  const origin = new URL(service.url!).origin;
  const ids = await sendKnownTraffic(origin, {
    ingest: config.receiver.authTokens[0] ?? config.receiver.authToken,
    read: config.results.readTokens[0] ?? config.receiver.authToken,
  });
  return { service, origin, ids, close: () => service.close() };
}

/**
 * Sends {@link KNOWN_RUNS} (with the ingest token, if any) and waits until every finished one has
 * a run record (read with the read token, if any).
 */
export async function sendKnownTraffic(
  origin: string,
  tokens: { ingest?: string | undefined; read?: string | undefined } = {},
): Promise<Record<string, string>> {
  const ids: Record<string, string> = {};
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (tokens.ingest) headers.authorization = `Bearer ${tokens.ingest}`;
  const readHeaders: Record<string, string> = tokens.read
    ? { authorization: `Bearer ${tokens.read}` }
    : {};
  for (const run of KNOWN_RUNS) {
    const { traceId: id, body } = runRequest(run);
    ids[run.name] = id;
    const response = await fetch(`${origin}/v1/traces`, {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`send ${run.name}: HTTP ${response.status}`);
  }
  await waitFor(
    async () => {
      for (const run of KNOWN_RUNS.filter(r => r.rootEnded !== false)) {
        const r = await fetch(`${origin}/api/v1/traces/${ids[run.name]}`, {
          headers: readHeaders,
        });
        if (!r.ok || ((await r.json()) as { state: string }).state === 'pending') return false;
      }
      return true;
    },
    'every finished known trace has a run record',
    20_000,
  );
  return ids;
}
