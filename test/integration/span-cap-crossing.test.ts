import { afterEach, describe, expect, it } from 'vitest';
import type { RunRecord } from '../../src/results/stored-result.js';
import { startLiveService } from '../helpers/live-service.js';
import { waitFor } from '../helpers/redis.js';
import { sessionTurn } from '../helpers/session-turn.js';

/**
 * `assembly.maxSpansPerTrace` is exact on both drivers (bullmq on the real Redis), through the
 * OTLP/HTTP receiver: of a request whose spans would take a trace past the cap, the spans that fit
 * are kept and the rest refused to the sender. The bullmq buffer kept such a batch whole, so a trace
 * one span short of its cap took a whole request more (a body's worth of spans: 10,000 past a cap
 * of 10,000 in one request of 10,000), where the memory driver stopped at the cap.
 */

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

async function sendAll(driver: 'memory' | 'bullmq') {
  const live = await startLiveService(
    driver,
    {
      'export.enabled': false,
      'assembly.maxSpansPerTrace': 4,
      // The trace stays open between its two requests: with the tests' usual 100 ms, a loaded host
      // scored it after the first, and the second was late spans of a scored trace.
      'assembly.settleMs': 5000,
      'assembly.maxWaitMs': 10_000,
    },
    closers,
  );
  const trace = sessionTurn('s-cross', ['a', 'b', 'c', 'd', 'e'], 0, {}, null);
  const [root, a, ...rest] = trace.spans;
  const answers: unknown[] = [];
  // The root and one tool (2 of 4), then four tools: two fit, two are past the cap.
  for (const spans of [[root!, a!], rest]) {
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
    truncated: record.diagnostics.filter(d => d.code === 'trace_truncated').map(d => d.message),
  };
}

describe('a request that takes a trace past assembly.maxSpansPerTrace', () => {
  it('keeps the spans that fit and refuses the rest, on both drivers alike', async () => {
    const memory = await sendAll('memory');
    expect(memory.answers).toEqual([
      {},
      {
        partialSuccess: {
          rejectedSpans: '2',
          errorMessage: expect.stringContaining('assembly.maxSpansPerTrace (4 spans)'),
        },
      },
    ]);
    expect(memory.calls).toEqual(['a', 'b', 'c']);
    expect(memory.truncated).toEqual([expect.stringMatching(/2 later span\(s\) were refused/)]);
    expect(await sendAll('bullmq')).toEqual(memory);
  }, 60_000);
});
