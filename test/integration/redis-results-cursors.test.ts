/**
 * The API takes either store's cursors (it serves both drivers): the Redis store's
 * `<entry id>.<line>` and the memory store's `<time>:<trace id>`. With the bullmq driver, on the
 * real service and Redis, a cursor that names no place in the Redis store's streams is an empty
 * page, never an id sent to Redis that it refuses (a 500).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startLiveService } from '../helpers/live-service.js';
import { waitFor } from '../helpers/redis.js';
import { serviceTraceSpans } from '../helpers/service-trace.js';

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

describe('cursors that name no place in the Redis store (bullmq driver)', () => {
  it('answer an empty page', async () => {
    const s = await startLiveService('bullmq', {}, closers);
    const trace = serviceTraceSpans({
      service: 'travel-agent',
      calls: [{ name: 'get_weather', args: { city: 'Lisbon' } }],
    });
    await s.send(trace);
    await waitFor(
      async () => (await s.get<{ traces: unknown[] }>('traces')).body.traces.length === 1,
      'the trace scored',
    );
    const cases: Array<[string, string]> = [
      // Before the first entry any stream can hold.
      ['results?cursor=0-0', 'results'],
      // The memory store's cursors.
      [`traces?cursor=${Date.now()}:${trace.traceId}`, 'traces'],
      [`sessions?cursor=${Date.now()}:session:a.b`, 'sessions'],
      [`sessions?cursor=${Date.now()}:session~2:conversation-1`, 'sessions'],
    ];
    for (const [path, list] of cases) {
      const { status, body } = await s.get<Record<string, unknown>>(path);
      expect({ path, status, body }).toEqual({
        path,
        status: 200,
        body: { [list]: [], nextCursor: null },
      });
    }
    // A cursor of this store still pages on.
    const { body } = await s.get<{ traces: unknown[] }>('traces?cursor=9999999999999999.1');
    expect(body.traces).toHaveLength(1);
  });
});
