import { afterEach, describe, expect, it } from 'vitest';
import { bufferKeyOf } from '../../src/redis/redis-span-buffer.js';
import type { RunRecord } from '../../src/results/stored-result.js';
import { startLiveService } from '../helpers/live-service.js';
import { waitFor } from '../helpers/redis.js';
import { scrapeMetric } from '../helpers/scrape-metric.js';
import { sessionTurn } from '../helpers/session-turn.js';

/**
 * Late spans past `assembly.maxSpansPerTrace` (with `assembly.rescoreLateSpans`), on both drivers
 * alike (bullmq on the real Redis), through the OTLP/HTTP receiver: of a late request that takes
 * a scored trace past its cap, the spans that fit are kept and counted late, the rest refused to
 * the sender and not counted late. Both drivers counted the late request whole (4 late spans, 2 of
 * them refused); the memory driver, while the trace was being scored, kept it whole past the cap
 * and refused none.
 */

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

async function sendLate(driver: 'memory' | 'bullmq') {
  const live = await startLiveService(
    driver,
    {
      'export.enabled': false,
      'assembly.maxSpansPerTrace': 4,
      'assembly.maxWaitMs': 3000,
      'assembly.rescoreLateSpans': true,
    },
    closers,
  );
  const trace = sessionTurn('s-late', ['a', 'b', 'c', 'd', 'e'], 0, {}, null);
  const [root, a, ...rest] = trace.spans;
  // The root and one tool (2 of 4), scored; then four tools: two fit, two are past the cap.
  const first = await live.send({ spans: [root!, a!] });
  await waitFor(
    async () =>
      (await live.get<RunRecord>(`traces/${trace.traceId}`)).body.state === 'scored' &&
      // bullmq: marked scored in the buffer, so that the next spans are late there too.
      (!live.redis ||
        (await live.redis.commands.hget(bufferKeyOf(live.prefix, trace.traceId), 'scored')) !==
          null),
    `${driver}: the trace scored`,
    15_000,
  );
  const late = await live.send({ spans: rest });
  return {
    answers: [first, late],
    lateSpans: await scrapeMetric(live.metrics, 'spanscore_late_spans_total'),
  };
}

describe('late spans past assembly.maxSpansPerTrace', () => {
  it('counts late only the spans kept, and refuses the rest, on both drivers alike', async () => {
    const memory = await sendLate('memory');
    expect(memory).toEqual({
      answers: [
        {},
        {
          partialSuccess: {
            rejectedSpans: '2',
            errorMessage: expect.stringContaining('assembly.maxSpansPerTrace (4 spans)'),
          },
        },
      ],
      lateSpans: 2,
    });
    expect(await sendLate('bullmq')).toEqual(memory);
  }, 60_000);
});
