/**
 * A resource's and scope's texts are sent once and carried by every span: what one request of
 * long ones costs the bullmq driver's Redis, on the real service and Redis.
 */
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_RESOURCE_TEXT_CHARS } from '../../src/ingest/resource-text.js';
import { gzip } from '../helpers/amplified-bodies.js';
import { otlpRequest, type SpanInput } from '../helpers/otlp-json-builder.js';
import { startLiveService } from '../helpers/live-service.js';
import { waitFor } from '../helpers/redis.js';

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

describe('long resource and scope texts (bullmq driver)', () => {
  it('are cut once, not stored whole once per span', async () => {
    const TRACES = 100;
    const LONG = 64 * 1024;
    // Scored after 3 s: the buffers are read whole before.
    const s = await startLiveService('bullmq', { 'assembly.settleMs': 3000 }, closers);
    // One resource and scope of 64 KB texts, 100 one-span traces: 270 KB of JSON, 4 KB of gzip.
    const resource = {
      'service.version': 'v'.repeat(LONG),
      'deployment.environment.name': 'e'.repeat(LONG),
    };
    const service = 's'.repeat(LONG);
    const scope = 'c'.repeat(LONG);
    const spans: SpanInput[] = Array.from({ length: TRACES }, () => ({
      traceId: randomBytes(16).toString('hex'),
      spanId: randomBytes(8).toString('hex'),
      name: 'invoke_agent',
      startMs: 0,
      endMs: 1,
      service,
      resource,
      scope,
    }));
    const body = gzip(Buffer.from(JSON.stringify(otlpRequest(spans))));
    expect(body.length).toBeLessThan(8192);
    const response = await fetch(`${s.origin}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body,
    });
    expect(response.status).toBe(200);

    // What the traces hold in Redis: their span buffers, read before they are scored.
    const redis = s.redis!.commands;
    const buffers = await redis.keys(`${s.prefix}:trace:*`);
    expect(buffers).toHaveLength(TRACES);
    let bytes = 0;
    for (const key of buffers) bytes += Number(await redis.memory('USAGE', key, 'SAMPLES', '0'));
    // Each span's four texts at the cut, and the hash around them. Whole, each span held 256 KB
    // of them: 26 MB in all.
    expect(bytes / TRACES).toBeLessThan(4 * MAX_RESOURCE_TEXT_CHARS + 1024);

    // The service is named by its cut name, wherever it is read.
    await waitFor(
      async () =>
        (await s.get<{ traces: unknown[] }>('traces?limit=200')).body.traces.length === TRACES,
      'the traces scored',
      30_000,
    );
    const { body: list } = await s.get<{ traces: Array<{ serviceName: string }> }>('traces');
    expect(new Set(list.traces.map(t => t.serviceName))).toEqual(
      new Set([service.slice(0, MAX_RESOURCE_TEXT_CHARS)]),
    );
  });
});
