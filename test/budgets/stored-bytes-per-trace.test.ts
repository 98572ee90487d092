import { describe, expect, it } from 'vitest';
import { budgetedNode, BUDGETS, runFigure } from '../../bench/budget-figures.js';
import { figureEnv } from '../helpers/figure-env.js';
import type { PipelineFigures } from '../../bench/pipeline-allocation.js';

/**
 * Bytes the results store takes per scored trace, counted (not timed), in a process of its own
 * on the built `dist/`, for the load benchmark's workload (1,024 20-span traces, two
 * deterministic scorers; see `bench/pipeline-allocation.ts`):
 * - Redis store: bytes of every command argument it sends (keys, values, script arguments; not
 *   the RESP framing), counted on its connection's `sendCommand`, on a real Redis under a
 *   private prefix. Left out: the per-minute hashes (counters, failure signatures), which each
 *   process rewrites once a second whatever the traffic, so their bytes follow the pass's
 *   duration.
 * - Memory store: the heap it holds after the pass (after full collections), against an empty
 *   store in its place.
 *
 * Measured when set (2026-11-28): Redis 7,366–7,389 bytes a trace on Node 20.20 (10 runs), the
 * same on 22 and 24 (bytes sent do not depend on V8): the run record's `SET` 5,613 (record,
 * results and export line), the results' stream entries 1,759 in `EVALSHA`. Memory: 7,572–7,635
 * on Node 20.20 (10 runs), 6,904–6,922 on 22.23 and 6,855–6,856 on 24.22 (3 each; the heap's
 * layout is V8's). The budgets (`BUDGETS` in bench/budget-figures.ts, where the bench prints
 * them beside the figures) are those maxima and about 2% (memory), 3% (Redis: a slower pass
 * writes smaller batches, each with its keys). To lower one: write or keep less per trace (each
 * result once, a smaller run record), measure with `npm run bench -- --budgets` (it prints the
 * Redis bytes by command), and set the budget to the new maximum and the same margin in
 * `BUDGETS`, on every Node major there, with the figures in this comment.
 *
 * Memory, since it holds run records and results compact (`compactRecordLine`,
 * `compactResultJson`: defaults left out, tool calls as rows, tool sequences as indices;
 * 2026-11-28): 4,846–4,848 on Node 20.20 (5 runs), budget 4,950 (2%); 4,169–4,170 on Node 24.22
 * (3 runs), budget 4,260; Node 22 was not on the host and keeps the budget above (an upper bound
 * still).
 *
 * Results layout 2 (`results.layout: 2`, each result written once: in the stream only, the run
 * record pointing at it; a pass's shared facts once; records and tool calls compact), measured
 * when set (2026-11-28, Node 20.20, 5 runs): 2,340–2,341 bytes a trace, the run record's `SET`
 * 1,608 and the stream entries 732 in `EVALSHA`; its budget (`redisLayout2StoredBytesPerTrace`)
 * is that and 3%, under issue 60's 2,500, which the test holds as well. Node 24 was not on the
 * host; bytes sent do not depend on the Node major.
 */
const BUDGET = {
  memory: BUDGETS.memoryStoredBytesPerTrace[budgetedNode()],
  redis: BUDGETS.redisStoredBytesPerTrace,
  redisLayout2: BUDGETS.redisLayout2StoredBytesPerTrace,
};

describe('results store: bytes stored per scored trace', () => {
  it.each(['memory', 'redis'] as const)(
    'stays within its budget with the %s results store',
    store => {
      const f = runFigure<PipelineFigures>(`allocation-${store}`, undefined, figureEnv());
      expect(f.traces).toBe(1024);
      expect(f.evaluationSpans).toBe(2 * 1024);
      // Something was stored for every trace: a record and its results are more than 1 kB.
      expect(f.storedBytesPerTrace).toBeGreaterThan(1000);
      if (store === 'redis') {
        // A SET per trace (its run record), and the results' stream entries.
        expect(f.storeCommandsPerTrace).toBeGreaterThanOrEqual(1);
        expect(f.storedBytesByCommand?.set ?? 0).toBeGreaterThan(1000);
        expect(f.storedBytesByCommand?.evalsha ?? 0).toBeGreaterThan(500);
      }
      expect(f.storedBytesPerTrace).toBeLessThanOrEqual(BUDGET[store]);
    },
    120_000,
  );

  it('stays within its own budget with the Redis results store writing results layout 2', () => {
    const f = runFigure<PipelineFigures>('allocation-redis-layout2', undefined, figureEnv());
    expect(f.traces).toBe(1024);
    expect(f.evaluationSpans).toBe(2 * 1024);
    // A SET per trace (its run record, pointing at its results) and the results' stream
    // entries, each result once.
    expect(f.storeCommandsPerTrace).toBeGreaterThanOrEqual(1);
    expect(f.storedBytesByCommand?.set ?? 0).toBeGreaterThan(1000);
    expect(f.storedBytesByCommand?.evalsha ?? 0).toBeGreaterThan(500);
    expect(f.storedBytesPerTrace).toBeLessThanOrEqual(BUDGET.redisLayout2);
    // Issue 60's bound for layout 2, apart from the budget's margin.
    expect(f.storedBytesPerTrace).toBeLessThanOrEqual(2_500);
  }, 120_000);
});
