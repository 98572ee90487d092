import { afterEach, describe, expect, it } from 'vitest';
import { REDIS_URL, redisFor, testPrefix, waitFor } from '../helpers/redis.js';
import { serveDefaults } from '../helpers/health-traffic.js';
import { runRequest } from '../helpers/results-traffic.js';

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

async function get<T>(origin: string, path: string): Promise<T> {
  const response = await fetch(`${origin}${path}`);
  expect(response.status, path).toBe(200);
  return (await response.json()) as T;
}

/**
 * A trace with tool calls whose resource names the service `service`, or carries no
 * `service.name` at all (`undefined`).
 */
function traceOf(service: string | undefined): { traceId: string; body: string } {
  const { traceId, body } = runRequest({
    name: 'unnamed',
    tools: ['get_weather'],
    service: service ?? 'placeholder',
  });
  const request = body as { resourceSpans: Array<{ resource?: unknown }> };
  if (service === undefined) for (const rs of request.resourceSpans) delete rs.resource;
  return { traceId, body: JSON.stringify(request) };
}

interface TraceRow {
  traceId: string;
  serviceName: string;
  state: string;
}

/**
 * Traffic with no `service.name` has one name everywhere, OpenTelemetry's `unknown_service`: in
 * the run records, the trace list and its filter, the summary's filter options, tool health and
 * the Prometheus labels; an SDK's own `unknown_service:node` stays as it was sent.
 */
describe.each(['memory', 'bullmq'] as const)('a service with no name (%s driver)', driver => {
  it('is unknown_service in the API, the filters and the metrics', async () => {
    const prefix = testPrefix();
    if (driver === 'bullmq') closers.push(redisFor(prefix).cleanup);
    const served = await serveDefaults(
      driver === 'bullmq'
        ? { 'queue.driver': 'bullmq', 'queue.redisUrl': REDIS_URL, 'queue.prefix': prefix }
        : { 'queue.driver': 'memory' },
    );
    closers.push(served.close);
    const sent = {
      unnamed: traceOf(undefined),
      sdkDefault: traceOf('unknown_service:node'),
      named: traceOf('travel-agent'),
    };
    for (const { body } of Object.values(sent)) {
      const response = await fetch(`${served.origin}/v1/traces`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      expect(response.status).toBe(200);
    }
    const serviceOf = new Map<string, string>();
    await waitFor(
      async () => {
        const { traces } = await get<{ traces: TraceRow[] }>(served.origin, '/api/v1/traces');
        for (const t of traces) if (t.state !== 'pending') serviceOf.set(t.traceId, t.serviceName);
        return Object.values(sent).every(s => serviceOf.has(s.traceId));
      },
      'the three traces scored',
      20_000,
    );
    expect(serviceOf.get(sent.unnamed.traceId)).toBe('unknown_service');
    expect(serviceOf.get(sent.sdkDefault.traceId)).toBe('unknown_service:node');
    expect(serviceOf.get(sent.named.traceId)).toBe('travel-agent');

    const record = await get<{ serviceName: string }>(
      served.origin,
      `/api/v1/traces/${sent.unnamed.traceId}`,
    );
    expect(record.serviceName).toBe('unknown_service');

    const filtered = await get<{ traces: TraceRow[] }>(
      served.origin,
      '/api/v1/traces?service=unknown_service',
    );
    expect(filtered.traces.map(t => t.traceId)).toEqual([sent.unnamed.traceId]);

    // Each service once among the filter's options, and no empty one beside "all".
    await waitFor(
      async () =>
        (await get<{ options: { services: string[] } }>(served.origin, '/api/v1/summary')).options
          .services.length === 3,
      'the summary counts the three services',
      5_000,
    );
    const summary = await get<{
      options: { services: string[] };
      byService: Array<{ serviceName: string }>;
    }>(served.origin, '/api/v1/summary?window=1h');
    expect([...summary.options.services].sort()).toEqual([
      'travel-agent',
      'unknown_service',
      'unknown_service:node',
    ]);
    expect(summary.byService.map(s => s.serviceName).sort()).toEqual([
      'travel-agent',
      'unknown_service',
      'unknown_service:node',
    ]);
    const results = await get<{ results: Array<{ serviceName: string; traceId: string }> }>(
      served.origin,
      '/api/v1/results?service=unknown_service&limit=500',
    );
    expect(results.results.length).toBeGreaterThan(0);
    expect(new Set(results.results.map(r => r.traceId))).toEqual(new Set([sent.unnamed.traceId]));

    const tools = await get<{ tools: Array<{ service: string; tool: string }> }>(
      served.origin,
      '/api/v1/tools?window=1h',
    );
    expect(tools.tools.map(t => t.service).sort()).toEqual([
      'travel-agent',
      'unknown_service',
      'unknown_service:node',
    ]);

    const metrics = await (await fetch(`${served.origin}/metrics`)).text();
    expect(metrics).toMatch(
      /spanscore_tool_calls_total\{service="unknown_service",tool="get_weather",outcome="ok"\} 1/,
    );
    expect(metrics).toMatch(/spanscore_evaluations_total\{[^}]*service="unknown_service"/);
    expect(metrics).not.toMatch(/service="(unknown)?"/);
  }, 60_000);
});
