import { afterEach, describe, expect, it } from 'vitest';
import type { RunRecord } from '../../src/results/stored-result.js';
import { startLiveService } from '../helpers/live-service.js';
import { waitFor } from '../helpers/redis.js';
import { sessionTurn } from '../helpers/session-turn.js';

/**
 * `assembly.maxSpansPerTrace` counts each span id once, on both drivers (bullmq on the real
 * Redis), through the OTLP/HTTP receiver: an exporter that retries a request the receiver had
 * accepted (its answer lost) sends the same spans again, and those copies take no room under the
 * cap. The bullmq buffer counted every copy, so the trace's later spans, its root among them, were
 * refused and the trace scored truncated, where the memory driver kept them.
 */

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

async function sendAll(driver: 'memory' | 'bullmq') {
  const live = await startLiveService(
    driver,
    { 'export.enabled': false, 'assembly.maxSpansPerTrace': 4, 'assembly.maxWaitMs': 3000 },
    closers,
  );
  // A root and three tool calls: the tools come first, twice (a retried request), then the root.
  const trace = sessionTurn(
    's-cap',
    ['lookup_order', 'verify_identity', 'issue_refund'],
    0,
    {},
    null,
  );
  const [root, ...tools] = trace.spans;
  const answers: unknown[] = [];
  for (const spans of [tools, tools, [root!]]) {
    answers.push(await live.send({ spans }));
  }
  await waitFor(
    async () => (await live.get<RunRecord>(`traces/${trace.traceId}`)).body.state === 'scored',
    `${driver}: the trace scored`,
    15_000,
  );
  const record = (await live.get<RunRecord>(`traces/${trace.traceId}`)).body;
  return {
    answers,
    calls: record.toolCalls.map(c => c.name),
    diagnostics: record.diagnostics.map(d => d.code),
  };
}

describe('a span sent twice, under assembly.maxSpansPerTrace', () => {
  it('counts once toward the cap on both drivers: the trace keeps its later spans', async () => {
    const memory = await sendAll('memory');
    expect(memory).toEqual({
      answers: [{}, {}, {}],
      calls: ['lookup_order', 'verify_identity', 'issue_refund'],
      diagnostics: [],
    });
    expect(await sendAll('bullmq')).toEqual(memory);
  }, 60_000);
});
