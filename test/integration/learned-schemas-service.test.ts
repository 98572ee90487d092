import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { startService } from '../../src/server/start-service.js';
import { otlpRequest } from '../helpers/otlp-json-builder.js';
import { REDIS_URL, redisFor, testPrefix, waitFor } from '../helpers/redis.js';
import { serviceTraceSpans } from '../helpers/service-trace.js';

/**
 * "A schema for every call", through `serve` on both drivers: a trace that records no schemas is
 * checked against the latest one its service (and version) offered in an earlier trace, and its
 * verdict, run record, inspect view and the tools API say where that schema came from. On the
 * BullMQ driver the receiver and the worker are separate services sharing Redis: what the worker
 * learned, the receiver's API shows.
 */
const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

const airport = {
  type: 'object',
  properties: {
    from: { type: 'string', pattern: '^[A-Z]{3}$' },
    to: { type: 'string', pattern: '^[A-Z]{3}$' },
  },
  required: ['from', 'to'],
  additionalProperties: false,
};

interface Served {
  origin: string;
  lines: string[];
}

/** `serve` (or a receiver and a worker, for bullmq) with `overrides`; closed after the test. */
async function serve(
  driver: 'memory' | 'bullmq',
  overrides: Record<string, unknown> = {},
  env: NodeJS.ProcessEnv = {},
): Promise<Served> {
  const prefix = testPrefix();
  if (driver === 'bullmq') closers.push(redisFor(prefix).cleanup);
  const config = await loadConfig({
    env,
    overrides: {
      'receiver.port': 0,
      'receiver.host': '127.0.0.1',
      'assembly.settleMs': 100,
      'export.logResults': false,
      'export.enabled': false,
      ...(driver === 'bullmq'
        ? { 'queue.driver': 'bullmq', 'queue.redisUrl': REDIS_URL, 'queue.prefix': prefix }
        : { 'queue.driver': 'memory' }),
      ...overrides,
    },
  });
  const lines: string[] = [];
  const log = (line: string) => lines.push(line);
  const roles =
    driver === 'bullmq'
      ? [
          { receiver: false, workers: true },
          { receiver: true, workers: false },
        ]
      : [{ receiver: true, workers: true }];
  let origin = '';
  for (const role of roles) {
    const service = await startService(config, role, { log });
    closers.push(() => service.close());
    if (service.url) origin = new URL(service.url).origin;
  }
  return { origin, lines };
}

async function get<T>(origin: string, path: string): Promise<T> {
  const response = await fetch(`${origin}${path}`);
  expect(response.status, path).toBe(200);
  return (await response.json()) as T;
}

/** Sends one run of `service` and waits until it is scored; returns its trace id. */
async function send(
  served: Served,
  options: Parameters<typeof serviceTraceSpans>[0],
  headers: Record<string, string> = {},
): Promise<string> {
  const { traceId, spans } = serviceTraceSpans(options);
  const response = await fetch(`${served.origin}/v1/traces`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(otlpRequest(spans)),
  });
  expect(response.status).toBe(200);
  await waitFor(
    async () => {
      const r = await fetch(`${served.origin}/api/v1/traces/${traceId}`, { headers });
      return r.ok && ((await r.json()) as { state: string }).state === 'scored';
    },
    `trace ${traceId} scored`,
    20_000,
  );
  return traceId;
}

interface Record_ {
  toolCalls: Array<{ name: string; argumentProblems?: string[] | null; schemaSource?: unknown }>;
  results: Array<{ scorer: string; status: string; label: string | null; reason: string }>;
}

const argumentsResult = (r: Record_) => r.results.find(x => x.scorer === 'tool_arguments')!;

describe.each(['memory', 'bullmq'] as const)('a schema for every call (%s driver)', driver => {
  it('checks a trace without schemas against the one its service offered earlier, and every view says where it came from', async () => {
    const served = await serve(driver);
    expect(served.lines.join('\n')).toContain(
      'spanscore: tool_arguments checks a call whose trace records no schema against the latest one its service offered in the last 24 h',
    );
    const first = await send(served, {
      service: 'travel-agent',
      version: '1.0',
      offered: [{ name: 'search_flights', parameters: airport }],
      calls: [{ name: 'search_flights', args: { from: 'BER', to: 'LIS' } }],
    });
    const second = await send(served, {
      service: 'travel-agent',
      version: '1.0',
      calls: [{ name: 'search_flights', args: { from: 'Berlin', to: 'LIS' } }],
    });

    const record = await get<Record_>(served.origin, `/api/v1/traces/${second}`);
    expect(argumentsResult(record)).toMatchObject({
      status: 'scored',
      label: 'fail',
      reason: expect.stringContaining(
        `/from must match pattern "^[A-Z]{3}$" (checked against the schema seen in trace ${first.slice(0, 8)}…`,
      ),
    });
    expect(argumentsResult(record).reason).toContain(
      'learned from another trace: this trace records none for it',
    );
    expect(record.toolCalls[0]).toMatchObject({
      argumentProblems: ['/from: must match pattern "^[A-Z]{3}$"'],
      schemaSource: { kind: 'learned', traceId: first },
    });
    const inspected = await get<Record_>(served.origin, `/api/v1/traces/${second}/inspect`);
    expect(inspected.toolCalls[0]!.schemaSource).toMatchObject({ kind: 'learned', traceId: first });

    // The worker's per-tool counters reach Redis within a second (bullmq).
    type Tools = {
      tools: Array<{ tool: string; checked: number; checkedBySchema: unknown; schema: unknown }>;
    };
    const row = async () =>
      (await get<Tools>(served.origin, '/api/v1/tools?window=1h')).tools.find(
        t => t.tool === 'search_flights',
      );
    await waitFor(async () => (await row())?.checked === 2, 'the per-tool counters', 10_000);
    expect(await row()).toMatchObject({
      checked: 2,
      checkedBySchema: { trace: 1, learned: 1, config: 0 },
      schema: { kind: 'learned', traceId: first },
    });

    // Another version offered no schema: nothing to check against, never a pass.
    const other = await send(served, {
      service: 'travel-agent',
      version: '2.0',
      calls: [{ name: 'search_flights', args: { from: 'Berlin', to: 'LIS' } }],
    });
    expect(
      argumentsResult(await get<Record_>(served.origin, `/api/v1/traces/${other}`)),
    ).toMatchObject({
      status: 'skipped',
      reason: expect.stringContaining('no schema for them was learned'),
    });
  }, 60_000);
});

describe('a schema for every call: what the operator decides', () => {
  const offeringRun = {
    service: 'shop',
    offered: [{ name: 'search_flights', parameters: airport }],
    calls: [{ name: 'search_flights', args: { from: 'BER', to: 'LIS' } }],
  };
  const bareRun = {
    service: 'shop',
    calls: [{ name: 'search_flights', args: { from: 'Berlin', to: 'LIS' } }],
  };

  it('learns nothing with learnSchemas: off, nor with token while ingest is open', async () => {
    for (const learnSchemas of ['off', 'token']) {
      const served = await serve('memory', { 'toolHealth.learnSchemas': learnSchemas });
      expect(served.lines.join('\n')).toContain(
        `spanscore: schemas are not learned from traffic (toolHealth.learnSchemas: ${learnSchemas}`,
      );
      await send(served, offeringRun);
      const bare = await send(served, bareRun);
      expect(
        argumentsResult(await get<Record_>(served.origin, `/api/v1/traces/${bare}`)),
      ).toMatchObject({
        status: 'skipped',
      });
    }
  }, 60_000);

  it('learns from token holders with learnSchemas: token when the receiver requires an ingest token', async () => {
    const served = await serve(
      'memory',
      { 'toolHealth.learnSchemas': 'token' },
      { SPANSCORE_INGEST_TOKENS: 'agent-token' },
    );
    expect(served.lines.join('\n')).toContain(
      '(learned from token holders: the receiver requires an ingest token)',
    );
    const ingest = { authorization: 'Bearer agent-token' };
    await send(served, offeringRun, ingest);
    const bare = await send(served, bareRun, ingest);
    expect(
      argumentsResult(await get<Record_>(served.origin, `/api/v1/traces/${bare}`)),
    ).toMatchObject({
      label: 'fail',
    });
  }, 60_000);

  it('checks against a schema given in toolHealth.schemas, over a learned one, and the tools API names the file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'spanscore-given-'));
    const file = join(dir, 'shop-tools.json');
    // An MCP tools/list result, saved: here a looser schema than the one traffic offers.
    writeFileSync(
      file,
      JSON.stringify({ tools: [{ name: 'search_flights', inputSchema: { type: 'object' } }] }),
    );
    const served = await serve('memory', {
      'toolHealth.schemas': [{ service: 'shop', file }],
    });
    await send(served, offeringRun);
    const bare = await send(served, bareRun);
    const result = argumentsResult(await get<Record_>(served.origin, `/api/v1/traces/${bare}`));
    expect(result).toMatchObject({ label: 'pass' });
    expect(result.reason).toContain(
      `against a schema from outside the trace, which records none: schema given in config (${file})`,
    );
    const tools = await get<{ tools: Array<{ tool: string; schema: unknown }> }>(
      served.origin,
      '/api/v1/tools?window=1h',
    );
    expect(tools.tools.find(t => t.tool === 'search_flights')!.schema).toEqual({
      kind: 'config',
      file,
    });
  }, 60_000);

  it('does not start with a schema file it cannot use, and says which and why', async () => {
    const config = await loadConfig({
      env: {},
      overrides: {
        'receiver.port': 0,
        'receiver.host': '127.0.0.1',
        'toolHealth.schemas': [{ service: 'shop', file: '/nonexistent/tools.json' }],
      },
    });
    await expect(
      startService(config, { receiver: true, workers: true }, { log: () => {} }),
    ).rejects.toThrow(
      /invalid configuration, toolHealth\.schemas\.0 \(\/nonexistent\/tools\.json\): cannot read the file/,
    );
  });
});
