import { afterEach, describe, expect, it } from 'vitest';
import type { RunRecord } from '../../src/results/stored-result.js';
import { startLiveService } from '../helpers/live-service.js';
import { waitFor } from '../helpers/redis.js';
import { sessionTurn } from '../helpers/session-turn.js';

/**
 * Resource texts holding a lone surrogate (OTLP/JSON can send one: `"\ud800"`), through a live
 * service on both drivers (bullmq on the real Redis): the same traffic reads the same. Redis
 * stores text as UTF-8, where a lone surrogate can only be U+FFFD; the memory driver kept it as
 * sent, so the two drivers named one service two ways.
 */

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

/**
 * What a driver's API says of a trace whose resource texts hold lone surrogates, calling `tools`.
 */
async function readBack(driver: 'memory' | 'bullmq', tools = ['lookup_order']) {
  const live = await startLiveService(driver, { 'export.enabled': false }, closers);
  const trace = sessionTurn('s-surrogate', tools, 0, {}, null);
  for (const span of trace.spans) {
    span.service = 'svc-\ud800-x';
    span.resource = { 'service.version': 'v\udc00', 'deployment.environment.name': 'prod\ud83d' };
  }
  await live.send(trace);
  await waitFor(
    async () => (await live.get<RunRecord>(`traces/${trace.traceId}`)).body.state === 'scored',
    `${driver}: the trace scored`,
    15_000,
  );
  const record = (await live.get<RunRecord>(`traces/${trace.traceId}`)).body;
  const listed = (await live.get<{ traces: Array<{ serviceName: string }> }>('traces')).body;
  return {
    service: record.serviceName,
    version: record.serviceVersion,
    environment: record.deploymentEnvironment,
    listed: listed.traces.map(t => t.serviceName),
    calls: record.toolCalls.map(c => c.name),
  };
}

describe('a resource text with a lone surrogate', () => {
  it('reads the same on both drivers: each lone half as U+FFFD', async () => {
    const memory = await readBack('memory');
    expect(memory).toEqual({
      service: 'svc-\ufffd-x',
      version: 'v\ufffd',
      environment: 'prod\ufffd',
      listed: ['svc-\ufffd-x'],
      calls: ['lookup_order'],
    });
    expect(await readBack('bullmq')).toEqual(memory);
  }, 60_000);

  it('in a tool name, too: any string of an OTLP/JSON body reads the same on both drivers', async () => {
    // A lone half, and a pair that stays one.
    const tools = ['look\ud800up\ud83d\ude00'];
    const memory = await readBack('memory', tools);
    expect(memory.calls).toEqual(['look\ufffdup\ud83d\ude00']);
    expect(await readBack('bullmq', tools)).toEqual(memory);
  }, 60_000);
});
